package ai.dwell.runtime.rank;

import ai.dwell.runtime.engine.ScoreOrder;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import org.junit.jupiter.api.Test;

import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prints (does not assert) the cost of dwell's second phase over a 2000-document rerank window: the
 * compiled network (neural), the ONNX model through the engine (neural_onnx, one ONNX Runtime call for
 * the window), and ONNX Runtime alone on the same feature matrix in one call, the floor. Best of
 * repeated rounds each (the program compiled beforehand, as per query), in the same run, as ratios to that floor. Also checks that the two profiles agree.
 */
public class NeuralBenchmarkTest {

    private static final int DOCUMENTS = 2000, MAX_ROUNDS = 2000;

    @Test
    void neuralSecondPhaseCost() throws Exception {
        ContentClusterConfig cluster = DwellPackage.cluster();
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        long now = 1_800_000_000L;
        DocumentIndex index = new DocumentIndex(cluster.schema("comment"), types);
        int[] lids = new int[DOCUMENTS];
        for (int i = 0; i < DOCUMENTS; i++) {
            Document comment = new Document(types.getDocumentType("comment"), new DocumentId("id:dwell:comment::p" + i));
            comment.setFieldValue("created_at", new LongFieldValue(now - i * 37L));
            comment.setFieldValue("upvotes", new IntegerFieldValue(i % 50));
            comment.setFieldValue("downvotes", new IntegerFieldValue(i % 7));
            comment.setFieldValue("text_length", new IntegerFieldValue(100 + i));
            lids[i] = index.put(comment);
        }
        index.importFrom(Map.of("comment", index, "author", new DocumentIndex(cluster.schema("author"), types)));
        var query = new QueryProperties(Map.of("vespa.now", String.valueOf(now)), Map.of());
        try (RankAssets assets = new RankAssets(cluster.schema("comment"), cluster.packageDir())) {
            double[] firstPhase = new double[DOCUMENTS], neural = new double[DOCUMENTS], onnx = new double[DOCUMENTS];
            RankProgram neuralProgram = program(assets, "neural", index, query), onnxProgram = program(assets, "neural_onnx", index, query);
            double neuralNanos = best(() -> neuralProgram.secondPhase(lids, firstPhase, DOCUMENTS, neural));
            double onnxNanos = best(() -> onnxProgram.secondPhase(lids, firstPhase, DOCUMENTS, onnx));
            double compileNanos = best(() -> program(assets, "neural", index, query));
            double[] baseline = new double[DOCUMENTS];
            double firstPhaseNanos = best(() -> neuralProgram.firstPhase(lids, DOCUMENTS, baseline));
            double sortNanos = best(() -> ScoreOrder.descending(baseline, DOCUMENTS));
            for (int i = 0; i < DOCUMENTS; i++) assertEquals(neural[i], onnx[i], 1e-5, "neural and neural_onnx agree on document " + i);

            float[] features = features(assets, index, query, lids);
            try (OrtEnvironment environment = OrtEnvironment.getEnvironment();
                 OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.setIntraOpNumThreads(1);
                options.setInterOpNumThreads(1);
                try (OrtSession session = environment.createSession(cluster.packageDir().resolve("models/dwell_nn.onnx").toString(), options)) {
                    String input = session.getInputNames().iterator().next();
                    double ortNanos = best(() -> {
                        try (OnnxTensor tensor = OnnxTensor.createTensor(environment, FloatBuffer.wrap(features), new long[] { DOCUMENTS, 9 });
                             OrtSession.Result result = session.run(Map.of(input, tensor))) {
                            float[][] scores = (float[][]) result.get(0).getValue();
                            if (Math.abs(scores[0][0] - neural[0]) > 1e-5) throw new AssertionError("ONNX Runtime alone disagrees: " + scores[0][0] + " vs " + neural[0]);
                        }
                    });
                    System.out.printf("second phase over %d documents, best round of each:%n", DOCUMENTS);
                    System.out.printf("  neural (compiled, batched): %.3f µs/doc  %.1fx ONNX Runtime alone%n", micros(neuralNanos), neuralNanos / ortNanos);
                    System.out.printf("  neural_onnx (engine):       %.3f µs/doc  %.1fx ONNX Runtime alone%n", micros(onnxNanos), onnxNanos / ortNanos);
                    System.out.printf("  ONNX Runtime alone, 1 call: %.3f µs/doc%n", micros(ortNanos));
                    System.out.printf("  (compiling neural for a query, once per query and node: %.0f µs)%n", compileNanos / 1000);
                    System.out.printf("first phase (baseline) over %d documents: %.3f µs/doc; ordering them by score: %.3f µs/doc%n",
                                      DOCUMENTS, micros(firstPhaseNanos), micros(sortNanos));
                }
            }
        }
    }

    /** A profile compiled for the query; its second phase then runs as the ranker runs it, one block for the window. */
    private static RankProgram program(RankAssets assets, String profile, DocumentIndex index, QueryProperties query) {
        return new RankProgram(assets.profile(profile).get(), assets, index, List.of(), query);
    }

    /** nn_input of every document, row-major [document][9], as the network's input. */
    private static float[] features(RankAssets assets, DocumentIndex index, QueryProperties query, int[] lids) {
        RankProgram program = new RankProgram(assets.profile("neural").get(), assets, index, List.of(), query);
        Node input = program.matchFeatures().stream().filter(f -> f.name().equals("nn_input")).findFirst().orElseThrow().node();
        float[] features = new float[lids.length * 9];
        for (int k = 0; k < lids.length; k++) {
            var tensor = input.tensor(lids[k]);
            for (int i = 0; i < 9; i++) features[k * 9 + i] = (float) tensor.get(com.yahoo.tensor.TensorAddress.of(i));
        }
        return features;
    }

    /** A round of work that may throw. */
    private interface Round { void run() throws Exception; }

    /** The fastest of repeated rounds: at least 10, and more until about two seconds have gone (JIT warm-up: the vector API is slow until C2 has compiled it). */
    private static double best(Round round) throws Exception {
        long best = Long.MAX_VALUE, total = 0;
        for (int i = 0; i < 10 || (total < 2_000_000_000L && i < MAX_ROUNDS); i++) {
            long start = System.nanoTime();
            round.run();
            long spent = System.nanoTime() - start;
            best = Math.min(best, spent);
            total += spent;
        }
        return best;
    }

    private static double micros(double nanos) { return nanos / DOCUMENTS / 1000; }

}
