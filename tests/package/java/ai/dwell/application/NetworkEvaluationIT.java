package ai.dwell.application;

import ai.vespa.models.evaluation.FunctionEvaluator;
import ai.vespa.models.evaluation.ModelsEvaluator;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.yahoo.config.FileReference;
import com.yahoo.filedistribution.fileacquirer.FileAcquirer;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.config.search.core.RankingConstantsConfig;
import com.yahoo.vespa.config.search.core.RankingExpressionsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Evaluates the rank profiles exactly as Vespa derived them from comment.sd (with Vespa's
 * expression evaluator and ONNX Runtime) on hand-made comments, and compares with an
 * independent numpy computation of the same features and network (tests/package/nn_cases.json,
 * written by nn_cases.py).
 */
public class NetworkEvaluationIT {

    private static final String COMMENT = "dwell/search/cluster.dwell/comment";
    private static final double TOLERANCE = 1e-5;

    private static ModelsEvaluator evaluator;
    private static JsonNode fixture;

    @BeforeAll
    static void setUp() throws IOException {
        FileAcquirer files = new FileAcquirer() {
            @Override public File waitFor(FileReference reference, long timeout, TimeUnit unit) {
                return DwellApplication.packageDir().resolve(reference.value()).toFile();
            }
            @Override public void shutdown() {}
        };
        evaluator = new ModelsEvaluator(DwellApplication.config(RankProfilesConfig.class, COMMENT),
                                        DwellApplication.config(RankingConstantsConfig.class, COMMENT),
                                        DwellApplication.config(RankingExpressionsConfig.class, COMMENT),
                                        DwellApplication.config(OnnxModelsConfig.class, COMMENT),
                                        files);
        fixture = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build()
                            .readTree(Files.readString(DwellApplication.root().resolve("tests/package/nn_cases.json")));
    }

    @AfterAll
    static void tearDown() { evaluator.deconstruct(); }

    @Test
    void featuresMatchNumpy() {
        for (JsonNode c : fixture.get("cases")) {
            Tensor features = evaluate("neural", "nn_input", comment(c));
            for (int i = 0; i < 9; i++)
                assertEquals(c.get("features").get(i).asDouble(), ((IndexedTensor) features).get(i), TOLERANCE, "feature " + i);
        }
    }

    @Test
    void baselineMatchesNumpy() {
        for (JsonNode c : fixture.get("cases"))
            assertEquals(c.get("baseline").asDouble(), evaluate("freshness", "firstphase", comment(c)).asDouble(), TOLERANCE);
    }

    @Test
    void neuralOnHandMadeFeatureVectorsMatchesNumpy() {
        for (JsonNode c : fixture.get("cases")) {
            Map<String, Tensor> query = packageWeights();
            query.put("rankingExpression(nn_input)", featureVector(c));
            assertEquals(c.get("neural_package").asDouble(), evaluate("neural", "secondphase", query).asDouble(), TOLERANCE);
        }
    }

    @Test
    void neuralWithQueryWeightsMatchesNumpy() {
        for (JsonNode c : fixture.get("cases")) {
            Map<String, Tensor> query = queryWeights();
            query.put("rankingExpression(nn_input)", featureVector(c));
            assertEquals(c.get("neural_query").asDouble(), evaluate("neural", "secondphase", query).asDouble(), TOLERANCE);
        }
    }

    @Test
    void neuralFromCommentAttributesMatchesNumpy() {
        for (JsonNode c : fixture.get("cases")) {
            Map<String, Tensor> bindings = comment(c);
            bindings.putAll(packageWeights());
            assertEquals(c.get("neural_package").asDouble(), evaluate("neural", "secondphase", bindings).asDouble(), TOLERANCE);
        }
    }

    @Test
    void neuralOnnxAgreesWithNumpyAndWithNeural() {
        for (JsonNode c : fixture.get("cases")) {
            Map<String, Tensor> features = new HashMap<>(Map.of("rankingExpression(nn_input)", featureVector(c)));
            double onnx = evaluate("neural_onnx", "secondphase", features).asDouble();
            Map<String, Tensor> neural = packageWeights();
            neural.putAll(features);
            assertEquals(c.get("neural_package").asDouble(), onnx, TOLERANCE);
            assertEquals(evaluate("neural", "secondphase", neural).asDouble(), onnx, TOLERANCE);

            assertEquals(c.get("neural_package").asDouble(), evaluate("neural_onnx", "secondphase", comment(c)).asDouble(), TOLERANCE);
        }
    }

    /**
     * Evaluates a function of a rank profile as derived by Vespa. Arguments come from the bindings;
     * an argument that is another function of the profile (model-evaluation leaves match-features
     * unresolved) is evaluated the same way first.
     */
    private static Tensor evaluate(String profile, String function, Map<String, Tensor> bindings) {
        FunctionEvaluator bound = evaluator.evaluatorOf(profile, function);
        for (String argument : bound.function().arguments()) {
            if (bindings.containsKey(argument))
                bound.bind(argument, bindings.get(argument));
            else if (argument.startsWith("rankingExpression("))
                bound.bind(argument, evaluate(profile, argument.substring("rankingExpression(".length(), argument.length() - 1), bindings));
            else
                throw new IllegalArgumentException(profile + "." + function + " needs " + argument);
        }
        return bound.evaluate();
    }

    /** The comment's attributes and the time, as rank features. */
    private static Map<String, Tensor> comment(JsonNode c) {
        Map<String, Tensor> bindings = new HashMap<>();
        bindings.put("now", Tensor.from(fixture.get("now").asDouble()));
        for (Iterator<Map.Entry<String, JsonNode>> a = c.get("attributes").fields(); a.hasNext(); ) {
            Map.Entry<String, JsonNode> attribute = a.next();
            bindings.put("attribute(" + attribute.getKey() + ")", Tensor.from(attribute.getValue().asDouble()));
        }
        return bindings;
    }

    private static Tensor featureVector(JsonNode c) {
        return tensor("tensor<float>(x[9])", c.get("features"), "x");
    }

    /** A query that carries no weights: model_version 0 and all-zero weight tensors, as Vespa fills in undeclared values. */
    private static Map<String, Tensor> packageWeights() {
        Map<String, Tensor> query = new HashMap<>();
        query.put("query(model_version)", Tensor.from(0.0));
        WEIGHT_TYPES.forEach((name, spec) -> query.put("query(" + name + ")", Tensor.Builder.of(TensorType.fromSpec(spec.type())).build()));
        return query;
    }

    /** The weights a rankingmodel document would bring, with its version. */
    private static Map<String, Tensor> queryWeights() {
        Map<String, Tensor> query = new HashMap<>();
        query.put("query(model_version)", Tensor.from(fixture.get("query_model_version").asDouble()));
        WEIGHT_TYPES.forEach((name, spec) ->
                query.put("query(" + name + ")", tensor(spec.type(), fixture.get("query_weights").get(name), spec.dimensions())));
        return query;
    }

    /** Weight tensors with their dimensions in numpy's axis order (Vespa's type sorts them by name). */
    private record WeightType(String type, String... dimensions) {}

    private static final Map<String, WeightType> WEIGHT_TYPES = Map.of(
            "W_0", new WeightType("tensor<float>(x[9],h1[9])", "x", "h1"),
            "b_0", new WeightType("tensor<float>(h1[9])", "h1"),
            "W_1", new WeightType("tensor<float>(h1[9],h2[9])", "h1", "h2"),
            "b_1", new WeightType("tensor<float>(h2[9])", "h2"),
            "W_2", new WeightType("tensor<float>(h2[9],o[1])", "h2", "o"),
            "b_2", new WeightType("tensor<float>(o[1])", "o"));

    private static Tensor tensor(String type, JsonNode nested, String... dimensions) {
        Tensor.Builder builder = Tensor.Builder.of(TensorType.fromSpec(type));
        fill(builder, nested, dimensions, new long[dimensions.length], 0);
        return builder.build();
    }

    private static void fill(Tensor.Builder builder, JsonNode node, String[] dims, long[] index, int depth) {
        if (depth == dims.length) {
            var cell = builder.cell();
            for (int d = 0; d < dims.length; d++) cell = cell.label(dims[d], index[d]);
            cell.value(node.asDouble());
            return;
        }
        for (int i = 0; i < node.size(); i++) {
            index[depth] = i;
            fill(builder, node.get(i), dims, index, depth + 1);
        }
    }

}
