package ai.dwell.runtime.rank;

import ai.vespa.modelintegration.evaluator.OnnxEvaluator;
import com.yahoo.tensor.TensorType;

import java.util.Map;

/**
 * An ONNX model of a schema (OnnxModelsConfig) with ONNX Runtime's evaluator: the feature that feeds
 * each model input, and which model output each feature output name ("as") refers to.
 */
record OnnxModel(String name, OnnxEvaluator evaluator, Map<String, String> inputSources, Map<String, String> outputs) {

    Map<String, TensorType> inputTypes() { return evaluator.getInputInfo(); }

    /** The model output for a feature output name, or the first output when none is given. */
    String modelOutput(String featureOutput) {
        if (featureOutput == null) return outputs.values().iterator().next();
        String output = outputs.get(featureOutput);
        if (output == null) throw new UnsupportedFeatureException("onnx(" + name + ") has no output '" + featureOutput + "'; it has " + outputs.keySet());
        return output;
    }

}
