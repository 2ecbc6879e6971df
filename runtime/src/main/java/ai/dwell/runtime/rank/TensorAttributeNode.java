package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TensorAttribute;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.function.IntUnaryOperator;

/**
 * attribute(name) of a tensor attribute, of this document type or imported from a parent through a reference (the
 * parent's tensor, or an empty tensor of the type when the document references none).
 */
final class TensorAttributeNode extends Node {

    private final TensorAttribute attribute;
    private final IntUnaryOperator lidInAttribute;

    TensorAttributeNode(TensorAttribute attribute) { this(attribute, IntUnaryOperator.identity()); }

    /** An attribute read at another local id (the referenced document's), none where lidInAttribute gives -1. */
    TensorAttributeNode(TensorAttribute attribute, IntUnaryOperator lidInAttribute) {
        this.attribute = attribute;
        this.lidInAttribute = lidInAttribute;
    }

    @Override TensorType type() { return attribute.type(); }
    @Override double number(int lid) { return tensor(lid).asDouble(); }
    @Override Tensor tensor(int lid) { return attribute.tensor(lidInAttribute.applyAsInt(lid)); }

}
