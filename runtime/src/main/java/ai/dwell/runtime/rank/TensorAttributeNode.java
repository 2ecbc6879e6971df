package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TensorAttribute;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

/** attribute(name) of a tensor attribute. */
final class TensorAttributeNode extends Node {

    private final TensorAttribute attribute;

    TensorAttributeNode(TensorAttribute attribute) { this.attribute = attribute; }

    @Override TensorType type() { return attribute.type(); }
    @Override double number(int lid) { return attribute.tensor(lid).asDouble(); }
    @Override Tensor tensor(int lid) { return attribute.tensor(lid); }

}
