package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.Reference;
import com.yahoo.searchlib.rankingexpression.evaluation.Context;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.searchlib.rankingexpression.rule.CompositeNode;
import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.searchlib.rankingexpression.rule.LambdaFunctionNode;
import com.yahoo.searchlib.rankingexpression.rule.OperationNode;
import com.yahoo.searchlib.rankingexpression.rule.Operator;
import com.yahoo.searchlib.rankingexpression.rule.SerializationContext;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.evaluation.TypeContext;

import java.util.Deque;
import java.util.List;
import java.util.Objects;

/**
 * Rewrites an expression for searchlib's evaluator so that a number on the left of a tensor in an operation works as
 * in proton: searchlib's DoubleValue adds, subtracts and multiplies a tensor (swapping or negating it) but refuses
 * `/`, `%` and `^` ("Cannot perform divide on ..."), so `1 / (1 + sum(hamming(q, d), v))`, which proton joins cell by
 * cell, failed at query time. In an operation with one of those operators and a tensor operand, each number operand
 * becomes a tensor of rank 0, whose join with the tensor is proton's scalar join; its cell type is float beside a
 * float, bfloat16 or int8 tensor (proton's result cell type for a double scalar joined with those), else double.
 * The number is then rounded to float before the join, where proton joins the double: a number not exact in float
 * (0.1, say) can give a float cell one unit in the last place away from proton's. Operations searchlib evaluates
 * already (no `/`, `%` or `^`) are left as they are, so they keep their bits. Lambdas are left as they are (their
 * arguments are numbers).
 */
final class ScalarOperands {

    /** The operators searchlib's DoubleValue refuses with a tensor on its right. */
    private static final java.util.Set<Operator> REFUSED = java.util.Set.of(Operator.divide, Operator.modulo, Operator.power);

    private ScalarOperands() {}

    static ExpressionNode rewrite(ExpressionNode node, TypeContext<Reference> types) {
        if (node instanceof LambdaFunctionNode || ! (node instanceof CompositeNode composite)) return node;
        List<ExpressionNode> children = composite.children().stream().map(child -> rewrite(child, types)).toList();
        if (composite instanceof OperationNode operation && operation.operators().stream().anyMatch(REFUSED::contains)) {
            List<TensorType> childTypes = children.stream().map(child -> typeOf(child, types)).toList();
            TensorType tensor = childTypes.stream().filter(t -> t != null && t.rank() > 0).findFirst().orElse(null);
            if (tensor != null && childTypes.stream().allMatch(Objects::nonNull)) {
                TensorType.Value cells = tensor.valueType() == TensorType.Value.DOUBLE ? TensorType.Value.DOUBLE
                                                                                       : TensorType.Value.FLOAT;
                List<ExpressionNode> operands = new java.util.ArrayList<>();
                for (int i = 0; i < children.size(); i++)
                    operands.add(childTypes.get(i).rank() == 0 ? new AsTensor(children.get(i), cells) : children.get(i));
                return new OperationNode(operands, operation.operators());
            }
            return new OperationNode(children, operation.operators());
        }
        List<ExpressionNode> before = composite.children();
        boolean same = true; // by identity: an expression's equals compares its text, which AsTensor does not change
        for (int i = 0; i < children.size(); i++) same &= children.get(i) == before.get(i);
        return same ? composite : composite.setChildren(children);
    }

    private static TensorType typeOf(ExpressionNode node, TypeContext<Reference> types) {
        try {
            return node.type(types);
        }
        catch (RuntimeException e) {
            return null; // a type this context cannot tell: left as it is
        }
    }

    /** A number as a tensor of rank 0 with the given cell type. */
    static final class AsTensor extends ExpressionNode {

        private final ExpressionNode number;
        private final TensorType type;

        AsTensor(ExpressionNode number, TensorType.Value cells) {
            this.number = number;
            this.type = new TensorType.Builder(cells).build();
        }

        @Override public Value evaluate(Context context) {
            return new TensorValue(Tensor.Builder.of(type).cell(number.evaluate(context).asDouble()).build());
        }

        @Override public TensorType type(TypeContext<Reference> context) { return type; }

        @Override public StringBuilder toString(StringBuilder b, SerializationContext context, Deque<String> path,
                                                CompositeNode parent) {
            return number.toString(b, context, path, parent);
        }

        @Override public int hashCode() { return Objects.hash("AsTensor", number, type); }

    }

}
