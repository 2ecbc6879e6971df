package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Arrays;
import java.util.BitSet;

/** A tensor attribute: one tensor per local id (an empty tensor of the type when unset, as Vespa reads it). */
public final class TensorAttribute extends Attribute {

    private final TensorType type;
    private final Tensor empty;
    private Tensor[] tensors = new Tensor[0];

    public TensorAttribute(String name, TensorType type) {
        super(name);
        this.type = type;
        this.empty = Tensor.Builder.of(type).build();
    }

    public TensorType type() { return type; }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        if ( ! (value instanceof TensorFieldValue tensorValue))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes tensors, got " + value.getDataType().getName());
        if (lid >= tensors.length) tensors = Arrays.copyOf(tensors, grow(tensors.length, lid));
        tensors[lid] = tensorValue.getTensor().orElse(null);
    }

    @Override
    public void clear(int lid) {
        if (lid < tensors.length) tensors[lid] = null;
    }

    /** The tensor for ranking: an empty tensor of the attribute's type when unset. */
    public Tensor tensor(int lid) {
        Tensor tensor = lid < tensors.length ? tensors[lid] : null;
        return tensor != null ? tensor : empty;
    }

    @Override
    public double number(int lid) { return tensor(lid).asDouble(); }

    @Override
    public Object value(int lid) { return lid < tensors.length ? tensors[lid] : null; }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) { return false; }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        throw new IllegalArgumentException("Range on tensor attribute '" + name() + "' is not supported");
    }

}
