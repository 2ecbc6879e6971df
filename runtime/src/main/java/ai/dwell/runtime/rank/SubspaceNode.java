package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiVectorIndex;
import com.yahoo.tensor.MixedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;

import java.util.Arrays;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * A tensor of one mapped dimension, alone or outside one bound indexed dimension, tensor(m{}) or tensor(m{},x[n]),
 * computed for one document at a time into reused arrays: its subspaces (one per label of m), each of {@link #size}
 * cells (n, or 1), subspace s's cells at s·size. The compiled form of the chunk expressions over a mixed attribute
 * such as rag-blueprint's cosines of unpack_bits(attribute(chunk_embeddings)): no Tensor per document.
 *
 * <p>Values are doubles, as searchlib's Java evaluator keeps the cells of mapped and mixed tensors whatever the cell
 * type (proton keeps float cells in float), and each step computes what that evaluator computes, in the same order
 * within a subspace, so cells are bit for bit the evaluator's. The evaluator's order of subspaces is that of its hash
 * maps; here it is the document's order of labels. That order shows only where it matters to a result: in which of
 * equal values a top(n) keeps at its last place, and in the order a reduce over the mapped dimension adds values
 * (sum and avg may then differ in the last bits of a double).
 *
 * <p>Each node computes a document once however many read it ({@link Memo}); its arrays grow to the largest document.
 */
abstract class SubspaceNode extends Node implements Memo {

    private final TensorType type;
    private final int size;
    private double[] cells = new double[0];
    private int count, lastLid = -1;

    SubspaceNode(TensorType type) {
        if ( ! isSubspaces(type)) throw new IllegalArgumentException("Expected one mapped dimension and at most one bound indexed dimension, got " + type);
        this.type = type;
        this.size = type.rank() == 1 ? 1 : type.indexedSubtype().dimensions().get(0).size().get().intValue();
    }

    /** Whether the type is tensor(m{}) or tensor(m{},x[n]). */
    static boolean isSubspaces(TensorType type) {
        long mapped = type.dimensions().stream().filter(TensorType.Dimension::isMapped).count();
        long bound = type.dimensions().stream().filter(d -> d.isIndexed() && d.size().isPresent()).count();
        return mapped == 1 && type.rank() == 1 + bound && bound <= 1;
    }

    @Override final TensorType type() { return type; }

    /** The number of cells of a subspace: the indexed dimension's size, or 1 without one. */
    final int size() { return size; }

    /** The name of the indexed dimension, or null. */
    final String indexedDimension() { return size == 1 && type.rank() == 1 ? null : type.indexedSubtype().dimensions().get(0).name(); }

    /** The node whose labels this node's subspaces have, in the same order: two nodes of one layout join subspace by subspace. */
    abstract SubspaceNode layout();

    /** Computes the value for the document, once: returns its number of subspaces, whose cells {@link #cells} then holds. */
    final int compute(int lid) {
        if (lid != lastLid) {
            count = computeInto(lid);
            lastLid = lid;
        }
        return count;
    }

    /** The cells of the document last computed. */
    final double[] cells() { return cells; }

    /** Computes the document's subspaces into the array {@link #reserve} gives; returns their number. */
    abstract int computeInto(int lid);

    /** The array for this many subspaces (grown, not shrunk). */
    final double[] reserve(int subspaces) {
        if (cells.length < subspaces * size) cells = new double[Math.max(subspaces * size, cells.length * 2)];
        return cells;
    }

    /** The label of a subspace of the document last computed. */
    abstract String label(int subspace);

    @Override public void forget() { lastLid = -1; }

    @Override double number(int lid) { return tensor(lid).asDouble(); }

    /** The value as a tensor: allocated, for what reads tensors (summary and match features, uncompiled expressions). */
    @Override
    Tensor tensor(int lid) {
        int subspaces = compute(lid);
        Tensor.Builder builder = Tensor.Builder.of(type);
        for (int s = 0; s < subspaces; s++) {
            TensorAddress label = TensorAddress.ofLabels(label(s));
            if (type.rank() == 1) builder.cell(label, cells[s]);
            else ((MixedTensor.BoundBuilder) builder).block(label, Arrays.copyOfRange(cells, s * size, (s + 1) * size));
        }
        return builder.build();
    }

    /**
     * unpack_bits(attribute(name), cellType, endian) of a tensor&lt;int8&gt;(m{},x[n]) attribute, as the config model
     * writes it: map_subspaces(attribute(name), f(s)(tensor&lt;cellType&gt;(x[8n])(bit(s{x:(x / 8)}, 7 - (x % 8))))),
     * or x % 8 for little endian. Cell x is bit 7 − x % 8 (big endian: the most significant bit first) or x % 8 of the
     * two's complement byte x / 8: 1 or 0. Reads the attribute's vectors in place (the multi-vector index's cells).
     */
    static final class UnpackBits extends SubspaceNode {
        private final MultiVectorIndex vectors;
        private final boolean bigEndian;
        private int lid;
        UnpackBits(TensorType type, MultiVectorIndex vectors, boolean bigEndian) {
            super(type);
            this.vectors = vectors;
            this.bigEndian = bigEndian;
            if (size() != 8 * vectors.dimensions()) throw new IllegalArgumentException(type + " does not unpack " + vectors.dimensions() + " bytes");
        }
        @Override SubspaceNode layout() { return this; }
        @Override int computeInto(int lid) {
            this.lid = lid;
            float[][] bytes = vectors.vectors(lid);
            double[] out = reserve(bytes.length);
            int size = size();
            for (int s = 0; s < bytes.length; s++) {
                float[] vector = bytes[s];
                int at = s * size;
                for (int j = 0; j < vector.length; j++) {
                    int value = (int) vector[j];
                    for (int bit = 0; bit < 8; bit++)
                        out[at++] = (value >>> (bigEndian ? 7 - bit : bit) & 1) == 0 ? 0.0 : 1.0;
                }
            }
            return bytes.length;
        }
        @Override String label(int subspace) { return vectors.label(lid, subspace); }
    }

    /** A node computed from one input of the same layout. */
    private abstract static class Derived extends SubspaceNode {
        final SubspaceNode input;
        Derived(TensorType type, SubspaceNode input) { super(type); this.input = input; }
        @Override final SubspaceNode layout() { return input.layout(); }
        @Override final String label(int subspace) { return input.label(subspace); }
    }

    /** A function of each cell (Java's map). */
    static final class Map extends Derived {
        private final DoubleUnaryOperator function;
        Map(TensorType type, SubspaceNode input, DoubleUnaryOperator function) { super(type, input); this.function = function; }
        @Override int computeInto(int lid) {
            int subspaces = input.compute(lid);
            double[] in = input.cells(), out = reserve(subspaces);
            for (int i = 0, length = subspaces * size(); i < length; i++) out[i] = function.applyAsDouble(in[i]);
            return subspaces;
        }
    }

    /**
     * join(v, t, f) or join(t, v, f) of a dense vector v constant for the query over t's indexed dimension: f(v[i], t[s, i])
     * (or f(t[s, i], v[i])) for each subspace s, in the order the operands have in the expression.
     */
    static final class JoinVector extends Derived {
        private final double[] vector;
        private final boolean vectorFirst;
        private final DoubleBinaryOperator operator;
        JoinVector(TensorType type, SubspaceNode input, double[] vector, boolean vectorFirst, DoubleBinaryOperator operator) {
            super(type, input);
            if (vector.length != input.size() || size() != input.size()) throw new IllegalArgumentException("A vector of " + vector.length + " cells does not join " + input.type());
            this.vector = vector;
            this.vectorFirst = vectorFirst;
            this.operator = operator;
        }
        @Override int computeInto(int lid) {
            int subspaces = input.compute(lid), n = size();
            double[] in = input.cells(), out = reserve(subspaces);
            for (int s = 0; s < subspaces; s++)
                for (int i = 0, at = s * n; i < n; i++, at++)
                    out[at] = vectorFirst ? operator.applyAsDouble(vector[i], in[at]) : operator.applyAsDouble(in[at], vector[i]);
            return subspaces;
        }
    }

    /**
     * An operator on two values of which one or both are of this layout and the other a number (the same for all
     * cells of the document): cell by cell, as Java's join of tensors of the same dimensions and labels, or with a number.
     */
    static final class Binary extends SubspaceNode {
        private final Node left, right;
        private final SubspaceNode leftCells, rightCells, layout; // leftCells, rightCells null for a number
        private final DoubleBinaryOperator operator;
        Binary(TensorType type, Node left, Node right, DoubleBinaryOperator operator) {
            super(type);
            this.left = left;
            this.right = right;
            this.leftCells = left instanceof SubspaceNode s ? s : null;
            this.rightCells = right instanceof SubspaceNode s ? s : null;
            this.layout = leftCells != null ? leftCells.layout() : rightCells.layout();
            if (leftCells != null && rightCells != null && (leftCells.layout() != rightCells.layout() || leftCells.size() != rightCells.size()))
                throw new IllegalArgumentException("Cannot join " + left.type() + " and " + right.type() + " subspace by subspace");
            if (leftCells == null && left.type().rank() > 0 || rightCells == null && right.type().rank() > 0)
                throw new IllegalArgumentException("Expected a number or subspaces, got " + left.type() + " and " + right.type());
            this.operator = operator;
        }
        @Override SubspaceNode layout() { return layout; }
        @Override String label(int subspace) { return (leftCells != null ? leftCells : rightCells).label(subspace); }
        @Override int computeInto(int lid) {
            int subspaces = leftCells != null ? leftCells.compute(lid) : rightCells.compute(lid);
            if (leftCells != null && rightCells != null) rightCells.compute(lid);
            double a = leftCells == null ? left.number(lid) : 0, b = rightCells == null ? right.number(lid) : 0;
            double[] l = leftCells == null ? null : leftCells.cells(), r = rightCells == null ? null : rightCells.cells();
            double[] out = reserve(subspaces);
            for (int i = 0, length = subspaces * size(); i < length; i++)
                out[i] = operator.applyAsDouble(l == null ? a : l[i], r == null ? b : r[i]);
            return subspaces;
        }
    }

    /** reduce(t, aggregator, x) over the indexed dimension: one cell per subspace, aggregated in the order of x. */
    static final class ReduceIndexed extends Derived {
        private final Aggregator aggregator;
        ReduceIndexed(TensorType type, SubspaceNode input, Aggregator aggregator) {
            super(type, input);
            if (input.size() < 1 || type.rank() != 1) throw new IllegalArgumentException("Cannot reduce " + input.type() + " to " + type);
            this.aggregator = aggregator;
        }
        @Override int computeInto(int lid) {
            int subspaces = input.compute(lid), n = input.size();
            double[] in = input.cells(), out = reserve(subspaces);
            for (int s = 0; s < subspaces; s++) out[s] = aggregator.aggregate(in, s * n, n);
            return subspaces;
        }
    }

    /**
     * top(n, t) of a tensor(m{}), as the config model writes it: join(t, filter_subspaces(join(cell_order(t, max), n,
     * f(a,b)(a &lt; b)), f(s)(s)), f(a,b)(a * b)) (or cell_order(t, min)): the cells whose rank by value is below n,
     * NaN first for max and last for min as Java's cell_order ranks it, equal values in the document's order of labels.
     */
    static final class Top extends SubspaceNode {
        private final SubspaceNode input;
        private final int n;
        private final boolean max;
        private int[] kept = new int[0];
        Top(TensorType type, SubspaceNode input, int n, boolean max) {
            super(type);
            if (input.size() != 1 || type.rank() != 1) throw new IllegalArgumentException("top over " + input.type() + " is not compiled");
            this.input = input;
            this.n = n;
            this.max = max;
        }
        @Override SubspaceNode layout() { return this; }
        @Override String label(int subspace) { return input.label(kept[subspace]); }
        @Override int computeInto(int lid) {
            int subspaces = input.compute(lid);
            double[] in = input.cells();
            if (kept.length < subspaces) kept = new int[Math.max(subspaces, kept.length * 2)];
            double[] out = reserve(Math.min(subspaces, Math.max(n, 0)));
            int count = 0;
            for (int s = 0; s < subspaces; s++) {
                int rank = 0;
                for (int t = 0; t < subspaces && rank < n; t++) {
                    int order = max ? nanAwareCompare(in[t], in[s]) : nanAwareCompare(in[s], in[t]);
                    if (order > 0 || order == 0 && t < s) rank++;
                }
                if (rank < n) {
                    kept[count] = s;
                    out[count++] = in[s] * 1.0;
                }
            }
            return count;
        }
        /** Java's cell_order comparison: NaN above all numbers, else Double.compare. */
        private static int nanAwareCompare(double a, double b) {
            if (Double.isNaN(a)) return Double.isNaN(b) ? 0 : 1;
            if (Double.isNaN(b)) return -1;
            return Double.compare(a, b);
        }
    }

    /** reduce(t, aggregator) of all cells to a number: 0 for a document without subspaces, as Java's reduce of an empty tensor. */
    static final class ReduceAll extends ScalarNode {
        private final SubspaceNode input;
        private final Aggregator aggregator;
        ReduceAll(SubspaceNode input, Aggregator aggregator) { this.input = input; this.aggregator = aggregator; }
        SubspaceNode input() { return input; }
        @Override double number(int lid) {
            int subspaces = input.compute(lid);
            return subspaces == 0 ? 0 : aggregator.aggregate(input.cells(), 0, subspaces * input.size());
        }
    }

    /** The aggregators of reduce as Java's evaluator computes them: in double, in order; max and min pass over NaN. */
    enum Aggregator {
        SUM, AVG, COUNT, MAX, MIN, PROD;

        static java.util.Optional<Aggregator> of(String name) {
            return switch (name) {
                case "sum" -> java.util.Optional.of(SUM);
                case "avg" -> java.util.Optional.of(AVG);
                case "count" -> java.util.Optional.of(COUNT);
                case "max" -> java.util.Optional.of(MAX);
                case "min" -> java.util.Optional.of(MIN);
                case "prod" -> java.util.Optional.of(PROD);
                default -> java.util.Optional.empty(); // median: not compiled
            };
        }

        double aggregate(double[] values, int from, int count) {
            switch (this) {
                case SUM, AVG -> {
                    double sum = 0.0;
                    for (int i = from; i < from + count; i++) sum += values[i];
                    return this == SUM ? sum : sum / count;
                }
                case COUNT -> { return count; }
                case MAX -> {
                    double max = Double.NEGATIVE_INFINITY;
                    for (int i = from; i < from + count; i++) if (values[i] > max) max = values[i];
                    return max;
                }
                case MIN -> {
                    double min = Double.POSITIVE_INFINITY;
                    for (int i = from; i < from + count; i++) if (values[i] < min) min = values[i];
                    return min;
                }
                default -> {
                    double product = 1.0;
                    for (int i = from; i < from + count; i++) product *= values[i];
                    return product;
                }
            }
        }
    }

}
