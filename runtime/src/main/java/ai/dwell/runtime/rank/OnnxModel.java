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

    /**
     * Whether a value of the given type can feed a model input of the expected type: the same cell
     * dimensions in order (names aside, as Vespa binds them by position), each of the same size where
     * the model fixes one.
     */
    static boolean fits(TensorType given, TensorType expected) {
        if (given.rank() != expected.rank()) return false;
        for (int d = 0; d < given.rank(); d++) {
            var want = expected.dimensions().get(d).size();
            var have = given.dimensions().get(d).size();
            if ( ! expected.dimensions().get(d).isIndexed() || ! given.dimensions().get(d).isIndexed()) return false;
            if (want.isPresent() && ! want.equals(have)) return false;
        }
        return true;
    }

    /** The model output for a feature output name, or the first output when none is given. */
    String modelOutput(String featureOutput) {
        if (featureOutput == null) return outputs.values().iterator().next();
        String output = outputs.get(featureOutput);
        if (output == null) throw new UnsupportedFeatureException("onnx(" + name + ") has no output '" + featureOutput + "'; it has " + outputs.keySet());
        return output;
    }

}
