package ai.dwell.runtime.rank;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.DocumentFrequency;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fieldTermMatch, fieldLength, matchCount, averageFieldLength, num_docs_indexed and queryTermDocumentFrequency as a
 * content node computes them, against values worked out by hand from four documents: terms past the query's end, a term
 * that does not search a field, a field no term matched, a document without the field, a term without positions, a
 * document frequency the request gives; and a BM25F score built from them, as the sample app examples/bm25f builds it.
 */
public class TermFieldFeaturesTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field title type string { indexing: index }
                    field body type string { indexing: index }
                    field notes type array<string> { indexing: index }
                    field tags type weightedset<string> { indexing: attribute }
                }
                fieldset default { fields: title, body }
                rank-profile features {
                    first-phase { expression: matchCount(title) + matchCount(body) }
                    match-features {
                        fieldTermMatch(title,0).firstPosition fieldTermMatch(title,0).lastPosition fieldTermMatch(title,0).occurrences
                        fieldTermMatch(title,0).weight fieldTermMatch(title,0).exactness fieldTermMatch(title,0)
                        fieldTermMatch(title,1).occurrences fieldTermMatch(title,1).firstPosition
                        fieldTermMatch(body,0).occurrences fieldTermMatch(body,0).firstPosition fieldTermMatch(body,0).lastPosition
                        fieldTermMatch(body,1).occurrences fieldTermMatch(body,1).lastPosition
                        fieldTermMatch(title,2).occurrences fieldTermMatch(title,2).firstPosition
                        fieldTermMatch(body,2).occurrences fieldTermMatch(body,2).lastPosition
                        fieldTermMatch(title,7).occurrences fieldTermMatch(title,7).firstPosition fieldTermMatch(title,7).exactness
                        fieldLength(title) fieldLength(body) matchCount(title) matchCount(body) matchCount(tags)
                        averageFieldLength(title) averageFieldLength(body) num_docs_indexed
                        queryTermDocumentFrequency(title) queryTermDocumentFrequency(body)
                        bm25(title) bm25(body)
                    }
                }
                rank-profile bm25f {
                    function wtf(n) {
                        expression: 2 * fieldTermMatch(title, n).occurrences / (0.25 + 0.75 * fieldLength(title) / averageFieldLength(title)) + fieldTermMatch(body, n).occurrences / (0.25 + 0.75 * fieldLength(body) / averageFieldLength(body))
                    }
                    function tf() {
                        expression: tensor(term{}):{ "0": wtf(0), "1": wtf(1), "2": wtf(2) }
                    }
                    function idf() {
                        expression: log(1 + (num_docs_indexed - queryTermDocumentFrequency(title) + 0.5) / (queryTermDocumentFrequency(title) + 0.5))
                    }
                    first-phase { expression: reduce(idf * tf / (1.2 + tf), sum, term) }
                }
            }
            """;

    @TempDir static Path tmp;
    private static ContentClusterConfig cluster;
    private static ContentNode node;

    @BeforeAll
    static void deploy() throws IOException {
        cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
        node = new ContentNode(cluster, 0);
        put(type, "d1", "a b a", "c a d e", "a");
        put(type, "d2", "b", "a a a b c", null);
        put(type, "d3", "c d", null, null); // no body
        put(type, "d4", "e", "b b", "b");
    }

    private static void put(DocumentType type, String id, String title, String body, String tag) {
        Document document = new Document(type, new DocumentId("id:test:doc::" + id));
        document.setFieldValue("title", DwellPackage.annotated(List.of(title.split(" "))));
        if (body != null) document.setFieldValue("body", DwellPackage.annotated(List.of(body.split(" "))));
        if (tag != null) {
            WeightedSet<StringFieldValue> tags = new WeightedSet<>(DataType.getWeightedSet(DataType.STRING));
            tags.put(new StringFieldValue(tag), 5);
            document.setFieldValue("tags", tags);
        }
        node.put(document);
    }

    @AfterAll
    static void close() { node.close(); }

    private static final double UNKNOWN = 1_000_000;

    /** a OR b on title and body, z on title (matches nothing), and a on tags. */
    private static Item abz() {
        OrItem or = new OrItem();
        or.addItem(new WordItem("a", "default"));
        or.addItem(new WordItem("b", "default"));
        or.addItem(new WordItem("z", "title"));
        or.addItem(new WordItem("a", "tags"));
        return or;
    }

    @Test
    void valuesWorkedOutByHand() {
        Map<String, Map<String, Object>> hits = search("features", abz());
        assertEquals(List.of("d1", "d2", "d4"), hits.keySet().stream().sorted().toList());

        Map<String, Object> d1 = hits.get("d1"); // title "a b a", body "c a d e", tags {a:5}
        assertEquals(0.0, d1.get("fieldTermMatch(title,0).firstPosition"));
        assertEquals(2.0, d1.get("fieldTermMatch(title,0).lastPosition"));
        assertEquals(2.0, d1.get("fieldTermMatch(title,0).occurrences"));
        assertEquals(2.0, d1.get("fieldTermMatch(title,0).weight"));
        assertEquals(1.0, d1.get("fieldTermMatch(title,0).exactness"));
        assertEquals(0.0, d1.get("fieldTermMatch(title,0)")); // the first output
        assertEquals(1.0, d1.get("fieldTermMatch(title,1).occurrences"));
        assertEquals(1.0, d1.get("fieldTermMatch(title,1).firstPosition"));
        assertEquals(1.0, d1.get("fieldTermMatch(body,0).occurrences"));
        assertEquals(1.0, d1.get("fieldTermMatch(body,0).firstPosition"));
        assertEquals(0.0, d1.get("fieldTermMatch(body,1).occurrences"));      // b is not in d1's body
        assertEquals(UNKNOWN, d1.get("fieldTermMatch(body,1).lastPosition"));
        assertEquals(0.0, d1.get("fieldTermMatch(title,2).occurrences"));     // z searches title, matches nothing
        assertEquals(UNKNOWN, d1.get("fieldTermMatch(title,2).firstPosition"));
        assertEquals(0.0, d1.get("fieldTermMatch(body,2).occurrences"));      // z does not search body
        assertEquals(UNKNOWN, d1.get("fieldTermMatch(body,2).lastPosition"));
        assertEquals(0.0, d1.get("fieldTermMatch(title,7).occurrences"));     // past the query's 4 terms
        assertEquals(UNKNOWN, d1.get("fieldTermMatch(title,7).firstPosition"));
        assertEquals(0.0, d1.get("fieldTermMatch(title,7).exactness"));
        assertEquals(3.0, d1.get("fieldLength(title)"));
        assertEquals(4.0, d1.get("fieldLength(body)"));
        assertEquals(2.0, d1.get("matchCount(title)"));
        assertEquals(1.0, d1.get("matchCount(body)"));
        assertEquals(1.0, d1.get("matchCount(tags)"));

        Map<String, Object> d2 = hits.get("d2"); // title "b", body "a a a b c"
        assertEquals(0.0, d2.get("fieldTermMatch(title,0).occurrences"));
        assertEquals(UNKNOWN, d2.get("fieldTermMatch(title,0).firstPosition"));
        assertEquals(0.0, d2.get("fieldTermMatch(title,0).weight"));
        assertEquals(0.0, d2.get("fieldTermMatch(title,1).firstPosition"));
        assertEquals(3.0, d2.get("fieldTermMatch(body,0).occurrences"));
        assertEquals(0.0, d2.get("fieldTermMatch(body,0).firstPosition"));
        assertEquals(2.0, d2.get("fieldTermMatch(body,0).lastPosition"));
        assertEquals(1.0, d2.get("fieldTermMatch(body,1).occurrences"));
        assertEquals(3.0, d2.get("fieldTermMatch(body,1).lastPosition"));
        assertEquals(1.0, d2.get("fieldLength(title)"));
        assertEquals(5.0, d2.get("fieldLength(body)"));
        assertEquals(1.0, d2.get("matchCount(title)"));
        assertEquals(2.0, d2.get("matchCount(body)"));
        assertEquals(0.0, d2.get("matchCount(tags)"));

        Map<String, Object> d4 = hits.get("d4"); // title "e", body "b b"
        assertEquals(UNKNOWN, d4.get("fieldLength(title)")); // no term matched the title: its length is not known
        assertEquals(2.0, d4.get("fieldLength(body)"));
        assertEquals(0.0, d4.get("matchCount(title)"));
        assertEquals(1.0, d4.get("fieldTermMatch(body,1).lastPosition"));
        assertEquals(2.0, d4.get("fieldTermMatch(body,1).occurrences"));

        // bm25 with the same document frequencies (a term's summed over its fields) over the node's 4 documents
        double idfA = Math.log(1 + (4 - 3 + 0.5) / (3 + 0.5)), idfB = Math.log(1 + (4 - 4 + 0.5) / (4 + 0.5));
        double titleNorm = 1.2 * (0.25 + 0.75 * 3 / 1.75), bodyNorm = 1.2 * (0.25 + 0.75 * 4 / (11.0 / 3));
        assertEquals(idfA * 2 * 2.2 / (2 + titleNorm) + idfB * 2.2 / (1 + titleNorm), (double) d1.get("bm25(title)"), 1e-12);
        assertEquals(idfA * 2.2 / (1 + bodyNorm), (double) d1.get("bm25(body)"), 1e-12);
        double d4BodyNorm = 1.2 * (0.25 + 0.75 * 2 / (11.0 / 3));
        assertEquals(0.0, d4.get("bm25(title)"));
        assertEquals(idfB * 2 * 2.2 / (2 + d4BodyNorm), (double) d4.get("bm25(body)"), 1e-12);

        for (Map<String, Object> hit : hits.values()) {
            assertEquals(7.0 / 4, hit.get("averageFieldLength(title)"));
            assertEquals(11.0 / 3, hit.get("averageFieldLength(body)")); // d3 has no body
            assertEquals(4.0, hit.get("num_docs_indexed"));
            // a: title d1 + body d1, d2 = 3; b: title d1, d2 + body d2, d4 = 4; z: 0 (title only); a on tags searches neither
            assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":3.0,\"1\":4.0,\"2\":0.0}"), hit.get("queryTermDocumentFrequency(title)"));
            assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":3.0,\"1\":4.0}"), hit.get("queryTermDocumentFrequency(body)"));
        }
    }

    @Test
    void aDocumentFrequencyTheRequestGivesAndATermWithoutPositions() {
        AndItem and = new AndItem();
        WordItem a = new WordItem("a", "default");
        a.setDocumentFrequency(new DocumentFrequency(7, 100));
        and.addItem(a);
        WordItem b = new WordItem("b", "title");
        b.setPositionData(false); // matched as a filter: no occurrences
        and.addItem(b);
        Map<String, Map<String, Object>> hits = search("features", and);
        assertEquals(List.of("d1", "d2"), hits.keySet().stream().sorted().toList());
        Map<String, Object> d1 = hits.get("d1");
        assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":7.0,\"1\":2.0}"), d1.get("queryTermDocumentFrequency(title)"));
        assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":7.0}"), d1.get("queryTermDocumentFrequency(body)"));
        assertEquals(1.0, d1.get("fieldTermMatch(title,1).occurrences"));
        assertEquals(UNKNOWN, d1.get("fieldTermMatch(title,1).firstPosition"));
        assertEquals(2.0, d1.get("matchCount(title)"));
        assertEquals(3.0, d1.get("fieldLength(title)")); // from a's occurrences; b has none
        double idfGiven = Math.log(1 + (100 - 7 + 0.5) / (7 + 0.5)); // bm25 takes the given frequency and count
        assertEquals(idfGiven * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / (11.0 / 3))), (double) d1.get("bm25(body)"), 1e-12);
        assertEquals(idfGiven * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 1.75)), (double) d1.get("bm25(title)"), 1e-12); // b: no occurrences
        Map<String, Object> d2 = hits.get("d2"); // title "b" (b without positions), body "a a a b c"
        assertEquals(UNKNOWN, d2.get("fieldLength(title)")); // only b matched the title, without positions
        assertEquals(1.0, d2.get("matchCount(title)"));
        assertEquals(3.0, d2.get("fieldTermMatch(body,0).occurrences"));
    }

    @Test
    void aSignificanceTheRequestGivesIsBm25sIdf() {
        WordItem a = new WordItem("a", "title");
        a.setSignificance(0.3);
        Map<String, Object> d1 = search("features", a).get("d1");
        assertEquals(0.3 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3 / 1.75)), (double) d1.get("bm25(title)"), 1e-12);
        assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":1.0}"), d1.get("queryTermDocumentFrequency(title)")); // not a frequency
    }

    @Test
    void aBm25fScoreFromTheFeatures() {
        Map<String, Map<String, Object>> hits = search("bm25f", abz());
        double avgTitle = 7.0 / 4, avgBody = 11.0 / 3;
        double idfA = Math.log(1 + (4 - 3 + 0.5) / (3 + 0.5)), idfB = Math.log(1 + (4 - 4 + 0.5) / (4 + 0.5)), idfZ = Math.log(1 + 4.5 / 0.5);
        double[][] expectedTf = { // by document: tf of a, b and z, worked out from the titles and bodies
                { 2 * 2 / (0.25 + 0.75 * 3 / avgTitle) + 1 / (0.25 + 0.75 * 4 / avgBody), 2 * 1 / (0.25 + 0.75 * 3 / avgTitle), 0 },
                { 3 / (0.25 + 0.75 * 5 / avgBody), 2 * 1 / (0.25 + 0.75 * 1 / avgTitle) + 1 / (0.25 + 0.75 * 5 / avgBody), 0 },
                { 0, 2 / (0.25 + 0.75 * 2 / avgBody), 0 } };
        double[] idf = { idfA, idfB, idfZ };
        String[] ids = { "d1", "d2", "d4" };
        for (int d = 0; d < 3; d++) {
            double score = 0;
            for (int t = 0; t < 3; t++) score += idf[t] * expectedTf[d][t] / (1.2 + expectedTf[d][t]);
            assertEquals(score, (double) hits.get(ids[d]).get("relevance"), 1e-6, ids[d]); // tensor cells of float: 1e-6
        }
    }

    @Test
    void theStatisticsAreTheContentNodes() {
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
        ContentNode other = new ContentNode(cluster, 0); // a second node of the cluster, with documents of its own
        try {
            Document document = new Document(type, new DocumentId("id:test:doc::o1"));
            document.setFieldValue("title", DwellPackage.annotated(List.of("a", "a", "b", "c", "d", "e")));
            document.setFieldValue("body", DwellPackage.annotated(List.of("b")));
            other.put(document);
            Map<String, Object> o1 = search(other, "features", abz()).get("o1");
            assertEquals(1.0, o1.get("num_docs_indexed"));
            assertEquals(6.0, o1.get("averageFieldLength(title)"));
            assertEquals(1.0, o1.get("averageFieldLength(body)"));
            assertEquals(Tensor.from("tensor<float>(term{}):{\"0\":1.0,\"1\":1.0,\"2\":0.0}"), o1.get("queryTermDocumentFrequency(title)")); // b: 2, at most 1
            assertEquals(4.0, search("features", abz()).get("d1").get("num_docs_indexed")); // the first node's are unchanged
        }
        finally {
            other.close();
        }
    }

    @Test
    void fieldsProtonRefusesAreRefusedByName() {
        DocumentIndex index = new DocumentIndex(cluster.schema("doc"), new DocumentTypeManager(cluster.documentManager()));
        RankProfile profile = new RankProfile(new RankProfilesConfig.Rankprofile(new RankProfilesConfig.Rankprofile.Builder().name("p")));
        ExpressionCompiler compiler = new ExpressionCompiler(profile, null, index, List.of(), QueryProperties.none());
        assertRefused(compiler, "fieldLength(notes)", "single-value index field");
        assertRefused(compiler, "fieldTermMatch(tags,0).occurrences", "'tags' is not an index field");
        assertRefused(compiler, "fieldTermMatch(title,first).occurrences", "index of a query term");
        assertRefused(compiler, "fieldTermMatch(title,0).count", "outputs firstPosition");
        assertRefused(compiler, "averageFieldLength(nosuch)", "'nosuch' is not an index field");
        assertRefused(compiler, "queryTermDocumentFrequency(tags)", "'tags' is not an index field");
        assertRefused(compiler, "matchCount(nosuch)", "'nosuch' is not an index field or attribute");
        assertRefused(compiler, "num_docs_indexed(title)", "takes no arguments");
        compiler.feature("fieldTermMatch(notes,0).occurrences"); // any index field
        compiler.feature("averageFieldLength(notes)");
        compiler.feature("matchCount(tags)");
    }

    private static void assertRefused(ExpressionCompiler compiler, String feature, String message) {
        String error = assertThrows(UnsupportedFeatureException.class, () -> compiler.feature(feature)).getMessage();
        assertTrue(error.contains(message) && error.contains(feature.substring(0, feature.indexOf('('))), error);
    }

    /** The hits of a query, by document id: their match features (numbers, tensors) and relevance. */
    private static Map<String, Map<String, Object>> search(String profile, Item root) { return search(node, profile, root); }

    private static Map<String, Map<String, Object>> search(ContentNode node, String profile, Item root) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        query.getModel().prepare(query.getRanking());
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 10));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        Map<com.google.protobuf.ByteString, String> ids = new HashMap<>();
        for (String id : List.of("d1", "d2", "d3", "d4", "o1"))
            ids.put(com.google.protobuf.ByteString.copyFrom(new DocumentId("id:test:doc::" + id).getGlobalId()), id);
        Map<String, Map<String, Object>> hits = new HashMap<>();
        List<String> names = new ArrayList<>(reply.getMatchFeatureNamesList());
        for (SearchProtocol.Hit hit : reply.getHitsList()) {
            Map<String, Object> features = new HashMap<>();
            for (int i = 0; i < names.size(); i++) {
                SearchProtocol.Feature feature = hit.getMatchFeatures(i);
                features.put(names.get(i), feature.getTensor().isEmpty() ? (Object) feature.getNumber()
                        : TypedBinaryFormat.decode(Optional.empty(), GrowableByteBuffer.wrap(feature.getTensor().toByteArray())));
            }
            features.put("relevance", hit.getRelevance());
            hits.put(ids.get(hit.getGlobalId()), features);
        }
        return hits;
    }

}
