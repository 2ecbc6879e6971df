package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The random rank feature as proton's RandomExecutor: with random.seed set, the documents' first-phase scores are
 * the first numbers of the lrand48 sequence of that seed (computed here with BigInteger from the POSIX definition),
 * the same for every query; without it, different for each query; random.match in [0, 1>, stable per document and
 * changed by the request's random.match.seed.
 */
public class RandomFeatureTest {

    private static final int DOCUMENTS = 40;

    @TempDir Path tmp;
    private ContentNode node;

    @BeforeEach
    void feed() {
        Path copy = DwellPackage.copyWithProfiles(tmp, """

                    rank-profile random_seeded {
                        rank-properties {
                            random.seed: 42
                        }
                        first-phase { expression: (random + random.out) / 2 }
                        match-features: random.match
                    }
                    rank-profile random_clock {
                        first-phase { expression: random }
                    }
                }
                """);
        ContentClusterConfig cluster = ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        node = new ContentNode(cluster, 0);
        DocumentType type = indexing.documentTypes().getDocumentType("comment");
        for (int i = 0; i < DOCUMENTS; i++) {
            Document comment = new Document(type, new DocumentId("id:dwell:comment::c" + i));
            comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
            comment.setFieldValue("article_id", new StringFieldValue("a1"));
            comment.setFieldValue("text", new StringFieldValue("comment " + i));
            comment.setFieldValue("created_at", new LongFieldValue(1_763_000_000L));
            comment.setFieldValue("upvotes", new IntegerFieldValue(i));
            node.put(indexing.process(comment));
        }
    }

    @AfterEach
    void close() { node.close(); }

    @Test
    void aSeededSequenceGivesTheDocumentsTheFirstNumbersOfLrand48() {
        List<Double> expected = lrand48(42, DOCUMENTS);
        expected.sort(java.util.Comparator.reverseOrder());
        SearchProtocol.SearchReply reply = search("random_seeded", Map.of());
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        assertEquals(expected, relevance(reply), "each document draws one number, however often the expression names random");
        assertEquals(relevance(reply), relevance(search("random_seeded", Map.of())), "the sequence starts again for each query");
    }

    @Test
    void withoutASeedEachQueryDrawsAnew() {
        List<Double> first = relevance(search("random_clock", Map.of()));
        for (double value : first) assertTrue(value >= 0 && value < 1, String.valueOf(value));
        assertNotEquals(first, relevance(search("random_clock", Map.of())));
    }

    @Test
    void randomMatchIsStablePerDocumentAndFollowsTheRequestsSeed() {
        Map<com.google.protobuf.ByteString, Double> once = matchFeature(search("random_seeded", Map.of()));
        assertEquals(once, matchFeature(search("random_seeded", Map.of())));
        once.values().forEach(value -> assertTrue(value >= 0 && value < 1, String.valueOf(value)));
        assertEquals(DOCUMENTS, new java.util.HashSet<>(once.values()).size());
        assertNotEquals(once, matchFeature(search("random_seeded", Map.of("random.match.seed", "7"))));
    }

    /** The first count numbers lrand48() / 2^31 gives after srand48(seed), from the POSIX definition. */
    private static List<Double> lrand48(long seed, int count) {
        BigInteger modulus = BigInteger.TWO.pow(48), a = new BigInteger("5DEECE66D", 16), c = BigInteger.valueOf(11);
        BigInteger x = BigInteger.valueOf(seed).shiftLeft(16).add(BigInteger.valueOf(0x330E));
        List<Double> numbers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            x = x.multiply(a).add(c).mod(modulus);
            numbers.add(x.shiftRight(17).doubleValue() / Math.pow(2, 31));
        }
        return numbers;
    }

    private static List<Double> relevance(SearchProtocol.SearchReply reply) {
        return reply.getHitsList().stream().map(SearchProtocol.Hit::getRelevance).toList();
    }

    private static Map<com.google.protobuf.ByteString, Double> matchFeature(SearchProtocol.SearchReply reply) {
        int at = reply.getMatchFeatureNamesList().indexOf("random.match");
        Map<com.google.protobuf.ByteString, Double> values = new java.util.HashMap<>();
        for (SearchProtocol.Hit hit : reply.getHitsList()) values.put(hit.getGlobalId(), hit.getMatchFeatures(at).getNumber());
        return values;
    }

    private SearchProtocol.SearchReply search(String profile, Map<String, String> properties) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(new WordItem("a1", "article_id"));
        properties.forEach((name, value) -> query.getRanking().getProperties().put(name, value));
        return node.search(DwellPackage.request(query, 100));
    }

}
