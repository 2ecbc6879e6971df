package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The match and summary features of a block of hits, computed node by node over the block, are bit for bit what
 * each feature gives document by document, for every profile of dwell's package that has output features, with the
 * shipped constants and with weights from the query; over random documents (some values left unset), random hit
 * sets in random order, and blocks computed after the program ranked other documents.
 */
public class FeatureBlockTest {

    private static final long NOW = 1_800_000_000L;
    private static final int DOCUMENTS = 3000;

    private final Random random = new Random(11);
    private final int[] documents = new int[DOCUMENTS];
    private DocumentIndex index;
    private RankAssets assets;

    @BeforeEach
    void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        index = new DocumentIndex(cluster.schema("comment"), types);
        for (int i = 0; i < DOCUMENTS; i++) {
            Document comment = new Document(types.getDocumentType("comment"), new DocumentId("id:dwell:comment::f" + i));
            comment.setFieldValue("created_at", new LongFieldValue(NOW - random.nextInt(400_000)));
            for (String counter : List.of("upvotes", "downvotes", "reply_count", "report_count", "reads", "read_ms", "text_length"))
                if (random.nextInt(12) != 0) comment.setFieldValue(counter, new IntegerFieldValue(random.nextInt(counter.equals("read_ms") ? 900_000 : 5000)));
            documents[i] = index.put(comment);
        }
        index.importFrom(Map.of("comment", index, "author", new DocumentIndex(cluster.schema("author"), types)));
        assets = new RankAssets(cluster.schema("comment"), cluster.packageDir());
    }

    @AfterEach
    void tearDown() { assets.close(); }

    @Test
    void blocksAreWhatEachDocumentGives() {
        int profiles = 0;
        for (String name : List.of("freshness", "neural", "neural_onnx")) {
            for (QueryProperties query : List.of(new QueryProperties(Map.of("vespa.now", String.valueOf(NOW)), Map.of()), withQueryWeights())) {
                RankProgram blocks = new RankProgram(assets.profile(name).get(), assets, index, List.of(), query);
                RankProgram documents = new RankProgram(assets.profile(name).get(), assets, index, List.of(), query);
                for (int round = 0; round < 5; round++) {
                    int[] ranked = lids(1 + random.nextInt(DOCUMENTS));
                    blocks.firstPhase(ranked, ranked.length, new double[ranked.length]); // the program has computed other blocks before
                    int[] hits = lids(1 + random.nextInt(round == 0 ? 3 : 400));
                    assertSame(blocks, documents, blocks.matchFeatures(), documents.matchFeatures(), hits, name + " match features");
                    assertSame(blocks, documents, blocks.summaryFeatures(), documents.summaryFeatures(), hits, name + " summary features");
                }
            }
            profiles++;
        }
        assertEquals(3, profiles, "every profile checked");
    }

    private static void assertSame(RankProgram blocks, RankProgram documents, List<RankProgram.OutputFeature> blockFeatures,
                                   List<RankProgram.OutputFeature> documentFeatures, int[] hits, String what) {
        FeatureBlock block = blocks.outputs(blockFeatures, hits, hits.length);
        assertFalse(blockFeatures.isEmpty() && what.contains("match"), what + ": the profile has some");
        for (int f = 0; f < blockFeatures.size(); f++) {
            RankProgram.OutputFeature feature = documentFeatures.get(f);
            for (int k = 0; k < hits.length; k++) {
                String where = what + ": " + feature.name() + " of document " + hits[k];
                if (feature.isNumber())
                    assertEquals(Double.doubleToRawLongBits(feature.number(hits[k])), Double.doubleToRawLongBits(block.number(f, k)), where);
                else {
                    Tensor expected = feature.tensor(hits[k]);
                    assertEquals(expected.type(), block.tensor(f, k).type(), where);
                    assertEquals(expected, block.tensor(f, k), where);
                }
            }
        }
    }

    /** Local ids drawn at random, in random order, with repeats. */
    private int[] lids(int count) {
        int[] lids = new int[count];
        for (int i = 0; i < count; i++) lids[i] = documents[random.nextInt(DOCUMENTS)];
        return lids;
    }

    /** A query carrying the network's weights (as RankingModelSearcher sends them): drawn at random. */
    private QueryProperties withQueryWeights() {
        Map<String, String> properties = Map.of("vespa.now", String.valueOf(NOW), "query(model_version)", "7");
        Map<String, Tensor> weights = Map.of("query(W_0)", randomTensor("tensor<float>(x[9],h1[9])"), "query(b_0)", randomTensor("tensor<float>(h1[9])"),
                                             "query(W_1)", randomTensor("tensor<float>(h1[9],h2[9])"), "query(b_1)", randomTensor("tensor<float>(h2[9])"),
                                             "query(W_2)", randomTensor("tensor<float>(h2[9],o[1])"), "query(b_2)", randomTensor("tensor<float>(o[1])"));
        Map<String, byte[]> tensors = new java.util.HashMap<>();
        weights.forEach((name, tensor) -> tensors.put(name, com.yahoo.tensor.serialization.TypedBinaryFormat.encode(tensor)));
        return new QueryProperties(properties, tensors);
    }

    private Tensor randomTensor(String type) {
        var builder = (com.yahoo.tensor.IndexedTensor.BoundBuilder) Tensor.Builder.of(com.yahoo.tensor.TensorType.fromSpec(type));
        long size = 1;
        for (var d : com.yahoo.tensor.TensorType.fromSpec(type).dimensions()) size *= d.size().get();
        for (int i = 0; i < size; i++) builder.cellByDirectIndex(i, random.nextGaussian());
        return builder.build();
    }

}
