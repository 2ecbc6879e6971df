package ai.dwell.runtime.rank;

import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.function.DoubleUnaryOperator;

/**
 * A dense tensor of one indexed dimension, computed into a reused double array (rounded to float
 * after each step when the type has float cells, as Vespa stores them). The compiled form of the
 * dense network layers: no allocation per document. Over a {@link Batch} the cells of all documents
 * are computed layer by layer into one cell-major array (cell i of document k at i·count + k), so
 * that the inner loops run over documents and vectorise.
 */
abstract class VectorNode extends Node implements DenseCells, Memo {

    private final TensorType type;
    private final boolean floatCells;
    private final double[] out;
    private int lastLid = -1;
    private double[] block = new double[0];
    private int blockGeneration = -1;

    VectorNode(TensorType type) {
        if (type.rank() != 1 || type.dimensions().get(0).size().isEmpty())
            throw new IllegalArgumentException("A vector node needs one bound indexed dimension, not " + type);
        this.type = type;
        this.floatCells = type.valueType() == TensorType.Value.FLOAT || type.valueType() == TensorType.Value.BFLOAT16;
        this.out = new double[size()];
    }

    final int size() { return type.dimensions().get(0).size().get().intValue(); }

    /** Whether the cells are rounded to float after each step. */
    final boolean floatCells() { return floatCells; }

    final String dimension() { return type.dimensions().get(0).name(); }

    /** The cell values for the document; the array is reused. */
    @Override
    public final double[] values(int lid) {
        if (lid != lastLid) {
            compute(lid, out);
            if (floatCells) for (int i = 0; i < out.length; i++) out[i] = (float) out[i];
            lastLid = lid;
        }
        return out;
    }

    abstract void compute(int lid, double[] out);

    @Override public final void forget() { lastLid = -1; }

    /** The cells of the documents of the block, cell-major; the array is reused. */
    @Override
    public final double[] cells(Batch batch) {
        if (batch.generation() != blockGeneration) {
            int length = size() * batch.count();
            block = Batch.atLeast(block, length);
            compute(batch, block);
            if (floatCells) CellMath.roundToFloat(block, length);
            blockGeneration = batch.generation();
        }
        return block;
    }

    @Override public final int cellCount() { return size(); }

    /** Computes the cells of the documents of the block into out, cell-major. */
    abstract void compute(Batch batch, double[] out);

    @Override TensorType type() { return type; }

    @Override double number(int lid) {
        if (size() != 1) throw new IllegalArgumentException("Expected a number, got a " + type);
        return values(lid)[0];
    }

    @Override Tensor tensor(int lid) {
        IndexedTensor.BoundBuilder builder = (IndexedTensor.BoundBuilder) Tensor.Builder.of(type);
        double[] values = values(lid);
        for (int i = 0; i < values.length; i++) builder.cellByDirectIndex(i, values[i]);
        return builder.build();
    }

    /** tensor(x[n]):[a, b, ...] of numbers. */
    static final class FromScalars extends VectorNode {
        private final Node[] cells;
        FromScalars(TensorType type, Node[] cells) { super(type); this.cells = cells; }
        @Override void compute(int lid, double[] out) {
            for (int i = 0; i < cells.length; i++) out[i] = cells[i].number(lid);
        }
        private double[] column = new double[0];
        @Override void compute(Batch batch, double[] out) {
            int n = batch.count();
            column = Batch.atLeast(column, n);
            for (int i = 0; i < cells.length; i++) {
                cells[i].numbers(batch, column);
                System.arraycopy(column, 0, out, i * n, n);
            }
        }
    }

    /** join(reduce(join(x, w, f(a,b)(a*b)), sum, d), b, f(a,b)(a+b)), i.e. xw_plus_b, with w and b folded per query. */
    static final class XwPlusB extends VectorNode {
        private final VectorNode input;
        private final double[] weights; // [in * outSize + out], as the weight tensor's cells (a float cell widened exactly)
        private final double[] bias;
        XwPlusB(TensorType type, VectorNode input, double[] weights, double[] bias) {
            super(type);
            this.input = input;
            this.weights = weights;
            this.bias = bias;
        }
        @Override void compute(int lid, double[] out) {
            double[] x = input.values(lid);
            int n = out.length;
            System.arraycopy(bias, 0, out, 0, n);
            for (int i = 0; i < x.length; i++) {
                double xi = x[i];
                int row = i * n;
                for (int j = 0; j < n; j++) out[j] += xi * weights[row + j];
            }
        }
        @Override void compute(Batch batch, double[] out) {
            double[] x = input.cells(batch);
            int n = batch.count(), outSize = bias.length, inSize = input.size();
            for (int j = 0; j < outSize; j++) {
                int to = j * n;
                java.util.Arrays.fill(out, to, to + n, bias[j]);
                for (int i = 0; i < inSize; i++)
                    CellMath.addScaled(out, to, x, i * n, weights[i * outSize + j], n);
            }
        }
    }

    /** A function applied to each cell. */
    static final class Map extends VectorNode {
        private final VectorNode input;
        private final DoubleUnaryOperator function;
        Map(VectorNode input, DoubleUnaryOperator function) { super(input.type()); this.input = input; this.function = function; }
        @Override void compute(int lid, double[] out) {
            double[] x = input.values(lid);
            for (int i = 0; i < x.length; i++) out[i] = function.applyAsDouble(x[i]);
        }
        @Override void compute(Batch batch, double[] out) {
            double[] x = input.cells(batch);
            for (int i = 0, length = size() * batch.count(); i < length; i++) out[i] = function.applyAsDouble(x[i]);
        }
    }

    /**
     * One of {@link MathNode}'s functions applied to each cell: a loop per function over the block (a function
     * called through an interface at every cell is a call the JIT cannot inline where several functions are used).
     * The elu of float cells (the network's hidden layers) is {@link CellMath}'s, SIMD where the JVM allows.
     */
    static final class MathMap extends VectorNode {
        private final VectorNode input;
        private final MathNode.Kind kind;
        private final boolean cellMath;
        MathMap(VectorNode input, MathNode.Kind kind) {
            super(input.type());
            this.input = input;
            this.kind = kind;
            this.cellMath = kind == MathNode.Kind.ELU && floatCells();
        }
        @Override void compute(int lid, double[] out) {
            double[] x = input.values(lid);
            System.arraycopy(x, 0, out, 0, x.length);
            apply(out, x.length);
        }
        @Override void compute(Batch batch, double[] out) {
            int length = size() * batch.count();
            System.arraycopy(input.cells(batch), 0, out, 0, length);
            apply(out, length);
        }
        private void apply(double[] values, int n) {
            if (cellMath) CellMath.eluInPlace(values, n);
            else MathNode.applyInPlace(kind, values, n);
        }
    }

    /** reduce(v, sum) of all cells of a dense value. */
    static final class Sum extends ScalarNode {
        private final DenseCells input;
        Sum(DenseCells input) { this.input = input; }
        @Override double number(int lid) {
            double sum = 0;
            for (double v : input.values(lid)) sum += v;
            return sum;
        }
        @Override void numbers(Batch batch, double[] out) {
            double[] cells = input.cells(batch);
            int n = batch.count();
            java.util.Arrays.fill(out, 0, n, 0);
            for (int i = 0; i < input.cellCount(); i++)
                for (int k = 0; k < n; k++) out[k] += cells[i * n + k];
        }
    }

}
