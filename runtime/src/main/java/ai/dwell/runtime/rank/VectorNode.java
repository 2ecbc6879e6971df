package ai.dwell.runtime.rank;

import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.function.DoubleUnaryOperator;

/**
 * A dense tensor of one indexed dimension, computed into a reused double array (rounded to float
 * after each step when the type has float cells, as Vespa stores them). The compiled form of the
 * dense network layers: no allocation per document.
 */
abstract class VectorNode extends Node {

    private final TensorType type;
    private final boolean floatCells;
    private final double[] out;
    private int lastLid = -1;

    VectorNode(TensorType type) {
        if (type.rank() != 1 || type.dimensions().get(0).size().isEmpty())
            throw new IllegalArgumentException("A vector node needs one bound indexed dimension, not " + type);
        this.type = type;
        this.floatCells = type.valueType() == TensorType.Value.FLOAT || type.valueType() == TensorType.Value.BFLOAT16;
        this.out = new double[size()];
    }

    final int size() { return type.dimensions().get(0).size().get().intValue(); }

    final String dimension() { return type.dimensions().get(0).name(); }

    /** The cell values for the document; the array is reused. */
    final double[] values(int lid) {
        if (lid != lastLid) {
            compute(lid, out);
            if (floatCells) for (int i = 0; i < out.length; i++) out[i] = (float) out[i];
            lastLid = lid;
        }
        return out;
    }

    abstract void compute(int lid, double[] out);

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
    }

    /** join(reduce(join(x, w, f(a,b)(a*b)), sum, d), b, f(a,b)(a+b)), i.e. xw_plus_b, with w and b folded per query. */
    static final class XwPlusB extends VectorNode {
        private final VectorNode input;
        private final float[] weights; // [in * outSize + out]
        private final double[] bias;
        XwPlusB(TensorType type, VectorNode input, float[] weights, double[] bias) {
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
    }

    /** reduce(v, sum) of a vector. */
    static final class Sum extends ScalarNode {
        private final VectorNode input;
        Sum(VectorNode input) { this.input = input; }
        @Override double number(int lid) {
            double sum = 0;
            for (double v : input.values(lid)) sum += v;
            return sum;
        }
    }

}
