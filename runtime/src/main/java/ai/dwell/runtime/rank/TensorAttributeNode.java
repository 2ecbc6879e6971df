package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiVectorIndex;
import ai.dwell.runtime.index.TensorAttribute;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;
import java.util.function.IntUnaryOperator;

/**
 * attribute(name) of a tensor attribute, of this document type or imported from a parent through a reference (the
 * parent's tensor, or an empty tensor of the type when the document references none).
 */
final class TensorAttributeNode extends Node {

    private final TensorAttribute attribute;
    private final IntUnaryOperator lidInAttribute;

    private static final IntUnaryOperator IDENTITY = lid -> lid;

    TensorAttributeNode(TensorAttribute attribute) { this(attribute, IDENTITY); }

    /** An attribute read at another local id (the referenced document's), none where lidInAttribute gives -1. */
    TensorAttributeNode(TensorAttribute attribute, IntUnaryOperator lidInAttribute) {
        this.attribute = attribute;
        this.lidInAttribute = lidInAttribute;
    }

    @Override TensorType type() { return attribute.type(); }

    /** The multi-vector index of a mixed tensor<T>(m{},x[n]) attribute of this document type (not imported), which holds its cells. */
    Optional<MultiVectorIndex> multiVectors() {
        return lidInAttribute == IDENTITY ? attribute.multiVectors() : Optional.empty();
    }

    @Override double number(int lid) { return tensor(lid).asDouble(); }
    @Override Tensor tensor(int lid) { return attribute.tensor(lidInAttribute.applyAsInt(lid)); }

}
