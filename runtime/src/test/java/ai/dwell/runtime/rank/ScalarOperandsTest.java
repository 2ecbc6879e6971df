package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.RankingExpression;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A number on the left of a tensor in -, /, % and ^ is joined with each cell, as proton does (searchlib's evaluator
 * refuses /, % and ^); +, - and * are evaluated by searchlib as before, and the result keeps the tensor's cell type.
 * Each expected cell is computed by hand from the tensor's cells.
 */
public class ScalarOperandsTest {

    private static final Tensor T = Tensor.from("tensor<float>(patch{},querytoken{}):{{patch:0,querytoken:0}:63.0,"
                                                + "{patch:1,querytoken:0}:2.0,{patch:0,querytoken:1}:0.5}");

    private static Tensor evaluate(String expression) throws Exception {
        Map<String, Node> features = Map.of("query(t)", ConstantNode.of(new TensorValue(T)));
        return new GenericNode(new RankingExpression(expression).getRoot(), features::get).tensor(0);
    }

    private static Tensor expected(java.util.function.DoubleUnaryOperator f) {
        return T.map(f);
    }

    @Test
    void aNumberLeftOfATensorIsJoinedWithEachCell() throws Exception {
        assertEquals(expected(x -> 1 / (1 + x)), evaluate("1 / (1 + query(t))"));
        assertEquals(expected(x -> 2 - x), evaluate("2 - query(t)"));
        assertEquals(expected(x -> 7 % x), evaluate("7 % query(t)"));
        assertEquals(expected(x -> Math.pow(2, x)), evaluate("2 ^ query(t)"));
        assertEquals(expected(x -> 3 * x + 1), evaluate("3 * query(t) + 1"));
        assertEquals(TensorType.fromSpec("tensor<float>(patch{},querytoken{})"), evaluate("1 / (1 + query(t))").type());
    }

    @Test
    void operationsSearchlibEvaluatesKeepTheirBits() throws Exception {
        // 0.1 is not a float: were it rounded to one before the join, cells would move by a unit in the last place
        assertEquals(expected(x -> x + 0.1), evaluate("query(t) + 0.1"));
        assertEquals(expected(x -> 0.1 - x), evaluate("0.1 - query(t)"));
        assertEquals(expected(x -> 0.1 * x), evaluate("0.1 * query(t)"));
    }

    @Test
    void insideATensorFunction() throws Exception {
        Tensor max = evaluate("reduce(1 / (1 + query(t)), max, patch)");
        assertEquals(Tensor.from("tensor<float>(querytoken{}):{{querytoken:0}:" + (float) (1 / 3.0) + ",{querytoken:1}:"
                                 + (float) (1 / 1.5) + "}"), max);
    }

}
