package ai.dwell.searchers;

import com.yahoo.search.result.FeatureData;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The impression line learning/ reads (dwell_learning/service.py, parse_impression): names, order and numbers. */
public class ImpressionJsonTest {

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
    void featuresAreRenderedAsVespaRendersThem() {
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
        String expected = "\"features\":" + features.toJson(true) + "}";
        assertTrue(line.contains(expected), line + " does not contain " + expected);
        assertTrue(line.contains("\"nn_input\":{\"type\":\"tensor<float>(x[9])\",\"values\":[0.0057578045,2.8332133,"), line);
    }

    @Test
    void anUnknownModelVersionIsNull() {
        Impression impression = new Impression("q2", 1L, "a1", "freshness", null, 0.0, 1.0, CANDIDATES, SLATE);
        assertTrue(ImpressionJson.encode(impression).contains("\"profile\":\"freshness\",\"model_version\":null,\"rate\":0.0,"));
    }

}
