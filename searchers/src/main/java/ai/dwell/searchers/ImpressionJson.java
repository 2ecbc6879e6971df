package ai.dwell.searchers;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.yahoo.search.rendering.JsonGeneratorDataSink;
import com.yahoo.search.rendering.NonFiniteToNullDataSink;
import com.yahoo.search.result.FeatureData;
import com.yahoo.tensor.serialization.JsonFormat;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The impression log's line format: an {@link Impression} as one JSON object. learning/ reads these
 * lines (dwell_learning/service.py, parse_impression), so the field names, their order and the
 * number formats are a contract: query_id, time_ms, article, profile, model_version, rate,
 * temperature, explored, propensity, pl_propensity, candidates [{id, score, features}],
 * shown [{position, candidate, id, step_propensity}]. Numbers are written by Jackson's fast writer (the shortest
 * decimal that reads back as the same double or float, Schubfach's): on Java 17, Double.toString and Float.toString
 * were half of this thread's CPU under load, most of it in their slow path for the floats of the match features.
 */
final class ImpressionJson {

    private static final JsonFactory JSON = JsonFactory.builder().enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER).build();
    private static final JsonFormat.EncodeOptions SHORT_TENSORS = new JsonFormat.EncodeOptions(true);

    private ImpressionJson() {}

    static String encode(Impression impression) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            Slate slate = impression.slate();
            json.writeStartObject();
            json.writeStringField("query_id", impression.queryId());
            json.writeNumberField("time_ms", impression.timeMillis());
            json.writeStringField("article", impression.article());
            json.writeStringField("profile", impression.profile());
            if (impression.modelVersion() == null) json.writeNullField("model_version");
            else json.writeNumberField("model_version", impression.modelVersion());
            json.writeNumberField("rate", impression.rate());
            json.writeNumberField("temperature", impression.temperature());
            json.writeBooleanField("explored", slate.explored());
            json.writeNumberField("propensity", slate.propensity());
            json.writeNumberField("pl_propensity", slate.plPropensity());

            json.writeArrayFieldStart("candidates");
            for (Impression.Candidate candidate : impression.candidates()) {
                json.writeStartObject();
                json.writeStringField("id", candidate.id());
                json.writeNumberField("score", candidate.score());
                if (candidate.features() instanceof WindowFeatures encoded) {
                    json.writeFieldName("features");
                    json.writeRawValue(encoded.impressionJson()); // encoded once for every view of a cached window
                }
                else if (candidate.features() != null) {
                    json.writeFieldName("features");
                    writeFeatures(candidate.features(), json);
                }
                json.writeEndObject();
            }
            json.writeEndArray();

            json.writeArrayFieldStart("shown");
            for (int position = 0; position < slate.size(); position++) {
                json.writeStartObject();
                json.writeNumberField("position", position);
                json.writeNumberField("candidate", slate.candidate(position));
                json.writeStringField("id", impression.candidates().get(slate.candidate(position)).id());
                json.writeNumberField("step_propensity", slate.stepPropensity(position));
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Match features as an impression writes them: the JSON object the candidate's "features" field holds. */
    static String features(FeatureData features) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            writeFeatures(features, json);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** As FeatureData.toJson(true) renders them, straight into this generator (not through a string per candidate). */
    private static void writeFeatures(FeatureData features, JsonGenerator json) throws IOException {
        features.asDataSource(SHORT_TENSORS).emit(new NonFiniteToNullDataSink(new JsonGeneratorDataSink(json)));
    }

}
