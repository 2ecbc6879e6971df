package ai.dwell.runtime.rank;

import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

/**
 * A dense tensor whose cells are cells of a vector: the compiled form of a reshape, rename or
 * slice such as tensor&lt;float&gt;(d0[1],d1[9])(nn_input{x:(d1)}), which feeds a network input to
 * an ONNX model. Which source cell each cell takes is found once per query by probing the expression.
 */
final class DenseGather extends Node implements DenseCells {

    private final TensorType type;
    private final DenseCells input;
    private final int[] sources; // the input cell of each cell, in direct index order
    private final double[] values;
    private double[] block = new double[0];
    private int blockGeneration = -1;

    DenseGather(TensorType type, DenseCells input, int[] sources) {
        this.type = type;
        this.input = input;
        this.sources = sources;
        this.values = new double[sources.length];
    }

    @Override TensorType type() { return type; }

    @Override public int cellCount() { return sources.length; }

    @Override
    public double[] values(int lid) {
        double[] from = input.values(lid);
        for (int c = 0; c < sources.length; c++) values[c] = from[sources[c]];
        return values;
    }

    @Override
    public double[] cells(Batch batch) {
        if (batch.generation() != blockGeneration) {
            int n = batch.count();
            double[] from = input.cells(batch);
            block = Batch.atLeast(block, sources.length * n);
            for (int c = 0; c < sources.length; c++) System.arraycopy(from, sources[c] * n, block, c * n, n);
            blockGeneration = batch.generation();
        }
        return block;
    }

    @Override double number(int lid) {
        if (sources.length != 1) throw new IllegalArgumentException("Expected a number, got a " + type);
        return values(lid)[0];
    }

    @Override Tensor tensor(int lid) {
        IndexedTensor.BoundBuilder builder = (IndexedTensor.BoundBuilder) Tensor.Builder.of(type);
        double[] cells = values(lid);
        for (int c = 0; c < cells.length; c++) builder.cellByDirectIndex(c, cells[c]);
        return builder.build();
    }

}
