package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

/** A tensor value that is the same for every document of the query (query(), constant(), folded subtrees). */
final class ConstantNode extends Node {

    private final Value value;

    ConstantNode(Value value) { this.value = value; }

    static Node of(Value value) {
        return value.type().rank() == 0 ? new ScalarNode.Constant(value.asDouble()) : new ConstantNode(value);
    }

    Tensor tensor() { return value.asTensor(); }

    @Override TensorType type() { return value.type(); }
    @Override boolean isConstant() { return true; }
    @Override double number(int lid) { return value.asDouble(); }
    @Override Tensor tensor(int lid) { return value.asTensor(); }
    @Override Value value(int lid) { return value; }

}
