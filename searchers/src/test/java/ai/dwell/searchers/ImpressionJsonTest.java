package ai.dwell.searchers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.search.result.FeatureData;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The impression line learning/ reads (dwell_learning/service.py, parse_impression): names, order and numbers. */
public class ImpressionJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final List<Impression.Candidate> CANDIDATES = List.of(
            new Impression.Candidate("id:dwell:comment::c0", 2.5, new FeatureData(Map.of("baseline", Tensor.from(2.5)))),
            new Impression.Candidate("id:dwell:comment::c1", 1.0, null));
    private static final Slate SLATE = new Slate(new int[] {1, 0}, new double[] {0.25, 1.0}, 0.25, 0.625, true);

    @Test
    void anImpressionIsOneJsonLineInTheOrderLearningReads() {
        Impression impression = new Impression("q1", 1700000000123L, "a1", "neural", 3L, 0.5, 3.0, CANDIDATES, SLATE);
        assertEquals("{\"query_id\":\"q1\",\"time_ms\":1700000000123,\"article\":\"a1\",\"profile\":\"neural\"," +
                     "\"model_version\":3,\"rate\":0.5,\"temperature\":3.0,\"explored\":true,\"propensity\":0.625,\"pl_propensity\":0.25," +
                     "\"candidates\":[{\"id\":\"id:dwell:comment::c0\",\"score\":2.5,\"features\":{\"baseline\":2.5}}," +
                     "{\"id\":\"id:dwell:comment::c1\",\"score\":1.0}]," +
                     "\"shown\":[{\"position\":0,\"candidate\":1,\"id\":\"id:dwell:comment::c1\",\"step_propensity\":0.25}," +
                     "{\"position\":1,\"candidate\":0,\"id\":\"id:dwell:comment::c0\",\"step_propensity\":1.0}]}",
                     ImpressionJson.encode(impression));
    }

    /** Match features as the content nodes send them (doubles, tensors in binary, a NaN): rendered as Vespa's FeatureData.toJson(true) renders them. */
    @Test
    void featuresAreRenderedAsVespaRendersThem() throws Exception {
        com.yahoo.slime.Slime slime = new com.yahoo.slime.Slime();
        com.yahoo.slime.Cursor fields = slime.setObject();
        fields.setDouble("age_hours", 123.77277777777778);
        fields.setDouble("query(model_version)", 1.0);
        fields.setDouble("undefined", Double.NaN);
        fields.setData("nn_input", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(
                Tensor.from("tensor<float>(x[9]):[0.0057578045, 2.8332133, 0.0, 1.3862944, 0.8567, 4.8121843, 0.0, -0.0, 5.0]")));
        fields.setData("scores", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(Tensor.from("tensor(d{}):{a:1.5, b:-2.25}")));
        FeatureData features = new FeatureData(new com.yahoo.data.access.slime.SlimeAdapter(slime.get()));
        List<Impression.Candidate> candidates = List.of(new Impression.Candidate("id:dwell:comment::c0", 2.5, features),
                                                        new Impression.Candidate("id:dwell:comment::c1", 1.0, null));
        String line = ImpressionJson.encode(new Impression("q3", 1L, "a1", "neural", 1L, 0.0, 1.0, candidates, SLATE));
        // the same JSON as Vespa's, number for number (the fast writer may spell a number shorter than Double.toString on Java 17)
        assertEquals(JSON.readTree(features.toJson(true)), JSON.readTree(line).get("candidates").get(0).get("features"));
        assertTrue(line.contains("\"nn_input\":{\"type\":\"tensor<float>(x[9])\",\"values\":[0.0057578045,2.8332133,"), line);
    }

    /** The features of a cached window's hit are encoded once, and the line is the very line of the plain features. */
    @Test
    void windowFeaturesWriteTheSameLineEncodedOnce() {
        com.yahoo.slime.Slime slime = new com.yahoo.slime.Slime();
        com.yahoo.slime.Cursor fields = slime.setObject();
        fields.setDouble("age_hours", 123.77277777777778);
        fields.setDouble("undefined", Double.NaN);
        fields.setData("nn_input", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(
                Tensor.from("tensor<float>(x[3]):[0.0057578045, -0.0, 5.0]")));
        fields.setData("scores", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(Tensor.from("tensor(d{}):{a:1.5, b:-2.25}")));
        var values = new com.yahoo.data.access.slime.SlimeAdapter(slime.get());
        WindowFeatures shared = new WindowFeatures(values);
        String plain = ImpressionJson.encode(impressionOf(new FeatureData(values)));
        assertEquals(plain, ImpressionJson.encode(impressionOf(shared)));
        String encoded = shared.impressionJson();
        assertEquals(plain, ImpressionJson.encode(impressionOf(shared)), "again, from the kept encoding");
        assertTrue(encoded == shared.impressionJson(), "encoded once");
        assertTrue(plain.contains("\"features\":" + encoded + "}"), plain);
    }

    private static Impression impressionOf(FeatureData features) {
        return new Impression("q4", 1L, "a1", "neural", 1L, 0.0, 1.0,
                              List.of(new Impression.Candidate("id:dwell:comment::c0", 2.5, features),
                                      new Impression.Candidate("id:dwell:comment::c1", 1.0, null)), SLATE);
    }

    /** Every score, propensity and feature value reads back as the very double or float it was. */
    @Test
    void numbersReadBackExactly() throws Exception {
        Random random = new Random(17);
        for (int round = 0; round < 200; round++) {
            double score = switch (round % 4) {
                case 0 -> random.nextGaussian() * 1e-3;
                case 1 -> random.nextDouble() * 1e6;
                case 2 -> Math.scalb(random.nextDouble(), random.nextInt(200) - 100);
                default -> (float) random.nextGaussian();
            };
            float[] cells = new float[9];
            for (int i = 0; i < cells.length; i++) cells[i] = Float.intBitsToFloat(random.nextInt(0x7f000000)) * (random.nextBoolean() ? 1 : -1);
            com.yahoo.slime.Slime slime = new com.yahoo.slime.Slime();
            slime.setObject().setData("nn_input", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(dense(cells)));
            FeatureData features = new FeatureData(new com.yahoo.data.access.slime.SlimeAdapter(slime.get()));
            Slate slate = new Slate(new int[] {0}, new double[] {score / 7}, score / 3, score / 11, true);
            String line = ImpressionJson.encode(new Impression("q", 1L, "a", "neural", 1L, 0.1, 1.0,
                                                               List.of(new Impression.Candidate("c", score, features)), slate));
            JsonNode tree = JSON.readTree(line);
            assertEquals(score, Double.parseDouble(tree.get("candidates").get(0).get("score").asText()), line);
            assertEquals(score / 3, Double.parseDouble(tree.get("pl_propensity").asText()), line);
            assertEquals(score / 11, Double.parseDouble(tree.get("propensity").asText()), line);
            assertEquals(score / 7, Double.parseDouble(tree.get("shown").get(0).get("step_propensity").asText()), line);
            JsonNode values = tree.get("candidates").get(0).get("features").get("nn_input").get("values");
            for (int i = 0; i < cells.length; i++)
                assertEquals(cells[i], Float.parseFloat(values.get(i).asText()), line);
        }
    }

    private static Tensor dense(float[] cells) {
        IndexedTensor.Builder builder = IndexedTensor.Builder.of(TensorType.fromSpec("tensor<float>(x[9])"));
        for (int i = 0; i < cells.length; i++) builder.cell(cells[i], i);
        return builder.build();
    }

    @Test
    void anUnknownModelVersionIsNull() {
        Impression impression = new Impression("q2", 1L, "a1", "freshness", null, 0.0, 1.0, CANDIDATES, SLATE);
        assertTrue(ImpressionJson.encode(impression).contains("\"profile\":\"freshness\",\"model_version\":null,\"rate\":0.0,"));
    }

}
