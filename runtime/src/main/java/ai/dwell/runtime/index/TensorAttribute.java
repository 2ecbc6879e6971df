package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Optional;

/**
 * A tensor attribute: one tensor per local id (an empty tensor of the type when unset, as Vespa reads it).
 * A dense one-dimensional attribute also keeps its vectors for nearestNeighbor ({@link NearestNeighborIndex});
 * when its cells are floats, the vector index is the only copy of them, and a tensor read from this is a
 * view of the vector index's cells (a small object per read, no copy of the cells). A mixed attribute with one mapped and
 * one indexed dimension, tensor&lt;T&gt;(m{},x[n]), keeps its tensors and also its vectors for multi-vector nearestNeighbor
 * ({@link MultiVectorIndex}). The cells of a bfloat16 attribute are kept truncated to bfloat16, as proton stores them
 * ({@link BFloat16Cells}).
 */
public final class TensorAttribute extends Attribute {

    private final TensorType type;
    private final Tensor empty;
    private NearestNeighborIndex nearestNeighbors; // replaced when state is loaded
    private final boolean cellsInVectorIndex;
    private final MultiVectorIndex multiVectors; // null unless a mixed tensor<T>(m{},x[n]) attribute
    private Tensor[] tensors = new Tensor[0];

    public TensorAttribute(String name, TensorType type) { this(name, type, (NearestNeighborIndex) null); }

    /** @param nearestNeighbors the vector index of a dense one-dimensional attribute, or null */
    public TensorAttribute(String name, TensorType type, NearestNeighborIndex nearestNeighbors) {
        this(name, type, nearestNeighbors, null);
    }

    /** A mixed tensor&lt;T&gt;(m{},x[n]) attribute with its vectors for multi-vector nearestNeighbor. */
    public TensorAttribute(String name, TensorType type, MultiVectorIndex multiVectors) {
        this(name, type, null, multiVectors);
    }

    private TensorAttribute(String name, TensorType type, NearestNeighborIndex nearestNeighbors, MultiVectorIndex multiVectors) {
        super(name);
        this.multiVectors = multiVectors;
        this.type = type;
        this.empty = Tensor.Builder.of(type).build();
        this.nearestNeighbors = nearestNeighbors;
        this.cellsInVectorIndex = nearestNeighbors != null && type.valueType() == TensorType.Value.FLOAT;
    }

    public TensorType type() { return type; }

    /** Whether the cells are kept only in the vector index (float vectors), not as tensors. */
    public boolean keepsCellsInVectorIndex() { return cellsInVectorIndex; }

    /** The vector index for nearestNeighbor, if this is a dense one-dimensional attribute. */
    public Optional<NearestNeighborIndex> nearestNeighbors() { return Optional.ofNullable(nearestNeighbors); }

    /** The vectors a nearestNeighbor item searches: the dense vector index, or the multi-vector one of a mixed attribute. */
    public Optional<VectorSearch> vectorSearch() {
        return nearestNeighbors != null ? Optional.of(nearestNeighbors) : Optional.ofNullable(multiVectors);
    }

    /** The multi-vector index of a mixed tensor<T>(m{},x[n]) attribute. */
    public Optional<MultiVectorIndex> multiVectors() { return Optional.ofNullable(multiVectors); }

    /** The type of the query tensor a nearestNeighbor item on this compares with: this type, or the indexed subspace of a mixed one. */
    public TensorType queryType() { return multiVectors != null ? multiVectors.queryType() : type; }

    /** Whether the type is a vector: one indexed dimension of known size. */
    public static boolean isVector(TensorType type) {
        return type.rank() == 1 && type.dimensions().get(0).isIndexed() && type.dimensions().get(0).size().isPresent();
    }

    @Override
    public void set(int lid, FieldValue value) {
        if (value == null) {
            clear(lid);
            return;
        }
        if ( ! (value instanceof TensorFieldValue tensorValue))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes tensors, got " + value.getDataType().getName());
        Tensor tensor = BFloat16Cells.asStored(tensorValue.getTensor().orElse(null));
        if ( ! cellsInVectorIndex) {
            if (lid >= tensors.length) tensors = Arrays.copyOf(tensors, grow(tensors.length, lid));
            tensors[lid] = tensor;
        }
        if (multiVectors != null) {
            if (tensor == null) multiVectors.clear(lid);
            else multiVectors.set(lid, tensor);
        }
        if (nearestNeighbors == null) return;
        if (tensor == null) nearestNeighbors.clear(lid);
        else nearestNeighbors.set(lid, vector(tensor, nearestNeighbors.dimensions()));
    }

    @Override
    public void clear(int lid) {
        if (lid < tensors.length) tensors[lid] = null;
        if (nearestNeighbors != null) nearestNeighbors.clear(lid);
        if (multiVectors != null) multiVectors.clear(lid);
    }

    /** The tensor for ranking: an empty tensor of the attribute's type when unset. */
    public Tensor tensor(int lid) {
        Tensor tensor = stored(lid);
        return tensor != null ? tensor : empty;
    }

    private Tensor stored(int lid) {
        if (lid < 0) return null; // no document (an imported attribute's missing parent)
        if (cellsInVectorIndex) {
            float[] cells = nearestNeighbors.vector(lid);
            return cells == null ? null : IndexedTensor.Builder.of(type, cells).build();
        }
        return lid < tensors.length ? tensors[lid] : null;
    }

    @Override
    public double number(int lid) { return tensor(lid).asDouble(); }

    @Override
    public Object value(int lid) { return stored(lid); }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) { return false; }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        throw new IllegalArgumentException("Range on tensor attribute '" + name() + "' is not supported");
    }

    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        if ( ! cellsInVectorIndex) {
            int length = Math.min(lidLimit, tensors.length);
            int count = 0;
            for (int lid = 0; lid < length; lid++) if (tensors[lid] != null) count++;
            out.writeInt(count);
            for (int lid = 0; lid < length; lid++) {
                if (tensors[lid] == null) continue;
                out.writeInt(lid);
                out.writeBytes(ai.dwell.runtime.format.TensorBytes.encode(tensors[lid]));
            }
        }
        out.writeBoolean(nearestNeighbors != null);
        if (nearestNeighbors != null) nearestNeighbors.writeTo(out);
    }

    /** Restores this attribute; a vector attribute's vector index is read anew and replaces the empty one. */
    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        if ( ! cellsInVectorIndex) {
            int count = in.readLength(8);
            for (int i = 0; i < count; i++) {
                int lid = in.readInt();
                if (lid < 0 || lid >= lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': local id out of range");
                if (lid >= tensors.length) tensors = Arrays.copyOf(tensors, grow(tensors.length, lid));
                tensors[lid] = com.yahoo.tensor.serialization.TypedBinaryFormat.decode(Optional.of(type), com.yahoo.io.GrowableByteBuffer.wrap(in.readBytes()));
                if (multiVectors != null) multiVectors.set(lid, tensors[lid]); // the vectors are not written: they are the tensors' cells
            }
        }
        boolean hasVectors = in.readBoolean();
        if (hasVectors != (nearestNeighbors != null)) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': vector index changed");
        if ( ! hasVectors) return;
        nearestNeighbors = NearestNeighborIndex.readFrom(in, nearestNeighbors.dimensions(), nearestNeighbors.metric(), nearestNeighbors.hnsw());
    }

    /** The cells of a dense vector tensor as floats. */
    public static float[] vector(Tensor tensor, int dimensions) {
        if ( ! (tensor instanceof IndexedTensor indexed) || indexed.size() != dimensions)
            throw new IllegalArgumentException("Expected a dense vector of " + dimensions + " cells, got " + tensor.type());
        float[] vector = new float[dimensions];
        for (int i = 0; i < dimensions; i++) vector[i] = (float) indexed.get(i);
        return vector;
    }

}
