package ai.dwell.runtime.rank;

import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One output of an ONNX model. Over a {@link Batch} the model runs once for the whole block, with the
 * documents stacked along the first (batch) dimension, when every input is a dense value whose first
 * dimension has size 1 and the model leaves that dimension free; otherwise (and for single documents)
 * it runs once per document. Either way, once for all outputs.
 */
final class OnnxNode extends Node implements DenseCells {

    /** The model runs for the current document or block, shared by the nodes of its outputs. */
    static final class Run implements Memo {
        private final OnnxModel model;
        private final Map<String, Node> inputs;
        private final boolean batchable;
        private final Map<String, Tensor> bound = new HashMap<>();
        private int lastLid = -1;
        private Map<String, Tensor> outputs;
        private int blockGeneration = -1;
        private Map<String, Tensor> blockOutputs;

        Run(OnnxModel model, Map<String, Node> inputs) {
            this.model = model;
            this.inputs = inputs;
            this.batchable = inputs.entrySet().stream().allMatch(input -> stacks(input.getValue(), model.inputTypes().get(input.getKey())))
                             && model.evaluator().getOutputInfo().values().stream().allMatch(type -> type.rank() > 0 && freeFirst(type));
        }

        @Override public void forget() { lastLid = -1; }

        Map<String, Tensor> outputs(int lid) {
            if (lid != lastLid) {
                for (var input : inputs.entrySet()) bound.put(input.getKey(), input.getValue().tensor(lid));
                outputs = model.evaluator().evaluate(bound);
                lastLid = lid;
            }
            return outputs;
        }

        /** The outputs for the whole block, the block's documents along the first dimension. */
        Map<String, Tensor> outputs(Batch batch) {
            if (batch.generation() != blockGeneration) {
                Map<String, Tensor> stacked = new LinkedHashMap<>();
                for (var input : inputs.entrySet()) stacked.put(input.getKey(), stack(input.getValue(), batch));
                blockOutputs = model.evaluator().evaluate(stacked);
                blockGeneration = batch.generation();
            }
            return blockOutputs;
        }

        private static Tensor stack(Node node, Batch batch) {
            int n = batch.count();
            TensorType one = node.type();
            TensorType.Builder typeBuilder = new TensorType.Builder(one.valueType());
            typeBuilder.indexed(one.dimensions().get(0).name(), n);
            for (var dimension : one.dimensions().subList(1, one.rank())) typeBuilder.indexed(dimension.name(), dimension.size().get());
            DenseCells dense = (DenseCells) node;
            int cells = dense.cellCount();
            double[] values = dense.cells(batch);
            IndexedTensor.BoundBuilder builder = (IndexedTensor.BoundBuilder) Tensor.Builder.of(typeBuilder.build());
            for (int k = 0; k < n; k++)
                for (int c = 0; c < cells; c++) builder.cellByDirectIndex((long) k * cells + c, values[c * n + k]);
            return builder.build();
        }

        private static boolean stacks(Node node, TensorType modelInput) {
            TensorType type = node.type();
            return node instanceof DenseCells && type.rank() > 0 && type.dimensions().stream().allMatch(d -> d.size().isPresent())
                   && type.dimensions().get(0).size().get() == 1 && freeFirst(modelInput);
        }

        private static boolean freeFirst(TensorType type) {
            return type.dimensions().get(0).isIndexed() && type.dimensions().get(0).size().isEmpty();
        }
    }

    private final Run run;
    private final String output;
    private final TensorType type;
    private final int cellCount;
    private double[] block = new double[0];
    private int blockGeneration = -1;

    OnnxNode(Run run, String output, TensorType type) {
        this.run = run;
        this.output = output;
        this.type = type;
        long cells = 1;
        for (var dimension : type.dimensions()) cells *= dimension.size().orElse(1L);
        this.cellCount = (int) cells;
    }

    @Override TensorType type() { return type; }
    @Override double number(int lid) { return tensor(lid).asDouble(); }
    @Override Tensor tensor(int lid) { return run.outputs(lid).get(output); }

    @Override public int cellCount() { return cellCount; }

    @Override
    public double[] values(int lid) {
        Tensor tensor = tensor(lid);
        double[] values = new double[(int) tensor.size()];
        var cells = tensor.valueIterator();
        for (int c = 0; cells.hasNext(); c++) values[c] = cells.next();
        return values;
    }

    @Override
    public double[] cells(Batch batch) {
        if (batch.generation() != blockGeneration) {
            int n = batch.count();
            block = Batch.atLeast(block, cellCount * n);
            if (run.batchable) {
                IndexedTensor stacked = (IndexedTensor) run.outputs(batch).get(output);
                for (int k = 0; k < n; k++)
                    for (int c = 0; c < cellCount; c++) block[c * n + k] = stacked.get((long) k * cellCount + c);
            }
            else {
                int[] lids = batch.lids();
                for (int k = 0; k < n; k++) {
                    double[] values = values(lids[k]);
                    for (int c = 0; c < cellCount; c++) block[c * n + k] = values[c];
                }
            }
            blockGeneration = batch.generation();
        }
        return block;
    }

    @Override void numbers(Batch batch, double[] out) {
        if (cellCount != 1) throw new IllegalArgumentException("Expected a number, got a " + type);
        System.arraycopy(cells(batch), 0, out, 0, batch.count());
    }

}
