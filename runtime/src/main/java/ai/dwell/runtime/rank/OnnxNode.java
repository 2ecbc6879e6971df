package ai.dwell.runtime.rank;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.HashMap;
import java.util.Map;

/** One output of an ONNX model, evaluated with ONNX Runtime once per document for all its outputs. */
final class OnnxNode extends Node {

    /** The model run for the current document, shared by the nodes of its outputs. */
    static final class Run {
        private final OnnxModel model;
        private final Map<String, Node> inputs;
        private final Map<String, Tensor> bound = new HashMap<>();
        private int lastLid = -1;
        private Map<String, Tensor> outputs;

        Run(OnnxModel model, Map<String, Node> inputs) { this.model = model; this.inputs = inputs; }

        Map<String, Tensor> outputs(int lid) {
            if (lid != lastLid) {
                for (var input : inputs.entrySet()) bound.put(input.getKey(), input.getValue().tensor(lid));
                outputs = model.evaluator().evaluate(bound);
                lastLid = lid;
            }
            return outputs;
        }
    }

    private final Run run;
    private final String output;
    private final TensorType type;

    OnnxNode(Run run, String output, TensorType type) {
        this.run = run;
        this.output = output;
        this.type = type;
    }

    @Override TensorType type() { return type; }
    @Override double number(int lid) { return tensor(lid).asDouble(); }
    @Override Tensor tensor(int lid) { return run.outputs(lid).get(output); }

}
