package ai.dwell.runtime.rank;

import com.yahoo.tensor.MixedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;

import java.util.List;

/**
 * The vectors of one document's tensor of mapped dimensions outside one bound indexed dimension, such as ColBERT's
 * tensor(dt{},x[n]) or colbert-long's tensor(context{},token{},x[n]): one row of n cells per subspace, read for one
 * document at a time into a reused array, in the order the document's tensor keeps its subspaces.
 */
abstract class TokenRows {

    private final TensorType type;
    private final List<String> mapped;
    private final String indexed;
    private final int size;
    double[] cells = new double[0];

    TokenRows(TensorType type) {
        if ( ! accepts(type)) throw new IllegalArgumentException("Expected mapped dimensions and one bound indexed dimension, got " + type);
        this.type = type;
        this.mapped = type.mappedSubtype().dimensionNames().stream().sorted().toList();
        this.indexed = type.indexedSubtype().dimensions().get(0).name();
        this.size = type.indexedSubtype().dimensions().get(0).size().get().intValue();
    }

    /** Whether the type has at least one mapped dimension and exactly one indexed dimension, of known size. */
    static boolean accepts(TensorType type) {
        long indexed = type.dimensions().stream().filter(TensorType.Dimension::isIndexed).count();
        return indexed == 1 && type.rank() > 1 && type.indexedSubtype().dimensions().get(0).size().isPresent();
    }

    final TensorType type() { return type; }

    /** The names of the mapped dimensions, in the order of the type (and of a label's index). */
    final List<String> mappedDimensions() { return mapped; }

    final String indexedDimension() { return indexed; }

    /** The number of cells of a row. */
    final int size() { return size; }

    /** Reads the document's rows into {@link #cells} (row r at r·size); returns their number. */
    abstract int load(int lid);

    /** The label of a mapped dimension (by its index in {@link #mappedDimensions}) of a row of the document last loaded. */
    abstract String label(int row, int dimension);

    final double[] reserve(int rows) {
        if (cells.length < rows * size) cells = new double[Math.max(rows * size, cells.length * 2)];
        return cells;
    }

    /** The rows of compiled subspaces (one mapped dimension), such as unpack_bits of a multi-vector attribute. */
    static final class OfSubspaces extends TokenRows {
        private final SubspaceNode subspaces;
        OfSubspaces(SubspaceNode subspaces) {
            super(subspaces.type());
            this.subspaces = subspaces;
        }
        @Override int load(int lid) {
            int rows = subspaces.compute(lid);
            cells = subspaces.cells();
            return rows;
        }
        @Override String label(int row, int dimension) { return subspaces.label(row); }
    }

    /**
     * The rows of a tensor attribute, read in place from the stored mixed tensor's dense subspaces: its cells as they
     * are, or unpacked as unpack_bits(attribute, cellType, endian) unpacks int8 cells: cell x of the unpacked row is bit
     * 7 − x % 8 (big endian) or x % 8 of byte x / 8, 1 or 0.
     */
    static final class OfAttribute extends TokenRows {
        enum Unpack { NONE, BIG_ENDIAN, LITTLE_ENDIAN }
        private final TensorAttributeNode attribute;
        private final Unpack unpack;
        private TensorAddress[] addresses = new TensorAddress[0];
        OfAttribute(TensorType type, TensorAttributeNode attribute, Unpack unpack) {
            super(type);
            this.attribute = attribute;
            this.unpack = unpack;
            int stored = attribute.type().indexedSubtype().dimensions().get(0).size().orElse(-1L).intValue();
            if (stored * (unpack == Unpack.NONE ? 1 : 8) != size())
                throw new IllegalArgumentException(type + " does not have the rows of " + attribute.type());
        }
        @Override int load(int lid) {
            Tensor tensor = attribute.tensor(lid);
            if ( ! (tensor instanceof MixedTensor mixed))
                throw new IllegalStateException("Expected a mixed tensor in attribute of type " + attribute.type() + ", got " + tensor.getClass().getSimpleName());
            List<MixedTensor.DenseSubspace> subspaces = mixed.getInternalDenseSubspaces();
            int rows = subspaces.size(), n = size();
            double[] out = reserve(rows);
            if (addresses.length < rows) addresses = new TensorAddress[Math.max(rows, addresses.length * 2)];
            for (int r = 0; r < rows; r++) {
                MixedTensor.DenseSubspace subspace = subspaces.get(r);
                addresses[r] = subspace.sparseAddress;
                double[] in = subspace.cells;
                int at = r * n;
                if (unpack == Unpack.NONE) {
                    System.arraycopy(in, 0, out, at, n);
                    continue;
                }
                boolean big = unpack == Unpack.BIG_ENDIAN;
                for (double cell : in) {
                    int value = (int) cell;
                    for (int bit = 0; bit < 8; bit++) out[at++] = (value >>> (big ? 7 - bit : bit) & 1) == 0 ? 0.0 : 1.0;
                }
            }
            return rows;
        }
        @Override String label(int row, int dimension) { return addresses[row].label(dimension); }
    }

}
