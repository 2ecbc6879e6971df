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
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import com.yahoo.vespa.config.search.RankProfilesConfig;
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
 * elementwise(bm25(field),dimension,cellType) and elementSimilarity(field) of an array index field as a content node
 * computes them, against values worked out by hand from four documents: an empty element (counted in the element
 * numbering and the average element length), an element two terms occur in, the bm25 parameters a profile sets,
 * terms in and out of query order, and outputs the profile defines.
 */
public class ElementwiseFeaturesTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field chunks type array<string> {
                        indexing: index
                        index: enable-bm25
                    }
                    field tags type weightedset<string> { indexing: index }
                }
                rank-profile elementwise {
                    rank-properties {
                        elementSimilarity(chunks).output.avgProximity: "avg(p)"
                        elementSimilarity(chunks).output.sumQ: "sum(q*w)"
                    }
                    function scores() { expression: elementwise(bm25(chunks),chunk,float) }
                    function best() { expression: reduce(scores, max, chunk) }
                    function top1() { expression: top(1, scores) }
                    first-phase { expression: best + elementSimilarity(chunks) }
                    match-features {
                        scores top1 best bm25(chunks) elementwise(bm25(chunks),c)
                        elementSimilarity(chunks) elementSimilarity(chunks).avgProximity elementSimilarity(chunks).sumQ
                    }
                }
                rank-profile completeness {
                    first-phase { expression: elementCompleteness(chunks) }
                    match-features {
                        elementCompleteness(chunks).fieldCompleteness elementCompleteness(chunks).queryCompleteness
                        elementCompleteness(chunks).elementWeight
                    }
                }
                rank-profile completeness_importance {
                    rank-properties {
                        elementCompleteness(chunks).fieldCompletenessImportance: 0.9
                    }
                    first-phase { expression: elementCompleteness(chunks).completeness }
                }
                rank-profile parameters {
                    rank-properties {
                        bm25(chunks).k1: 2.0
                        bm25(chunks).b: 0.25
                        elementwise(bm25(chunks),chunk,double).b: 0.5
                        bm25(chunks).averageElementLength: 4
                    }
                    first-phase { expression: reduce(elementwise(bm25(chunks),chunk,double), sum, chunk) }
                    match-features { elementwise(bm25(chunks),chunk,double) }
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
        put(type, "d1", "a b a", "c", "b d");
        put(type, "d2", "", "a a b b c");
        put(type, "d3", "c d");
        put(type, "d4", "e");
    }

    private static void put(DocumentType type, String id, String... chunks) {
        Document document = new Document(type, new DocumentId("id:test:doc::" + id));
        Array<StringFieldValue> array = new Array<>(DataType.getArray(DataType.STRING));
        for (String chunk : chunks) array.add(DwellPackage.annotated(chunk.isEmpty() ? List.of() : List.of(chunk.split(" "))));
        document.setFieldValue("chunks", array);
        node.put(document);
    }

    @AfterAll
    static void close() { node.close(); }

    /** 14 terms in 7 elements: the average element length is 2. a and b are each in 2 of the 4 documents: idf log 2. */
    private static double bm25(int tf, int length) {
        return Math.log(2) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / 2.0));
    }

    private static Item terms(String... words) {
        OrItem or = new OrItem();
        for (String word : words) or.addItem(new WordItem(word, "chunks"));
        return or;
    }

    @Test
    void elementwiseBm25WorkedOutByHand() {
        Map<String, Map<String, Object>> hits = search("elementwise", terms("a", "b"));
        assertEquals(List.of("d1", "d2"), hits.keySet().stream().sorted().toList());
        TensorType floats = TensorType.fromSpec("tensor<float>(chunk{})");

        Map<String, Object> d1 = hits.get("d1"); // "a b a" (a twice, b once, length 3), "c", "b d" (b once, length 2)
        double d1e0 = bm25(2, 3) + bm25(1, 3), d1e2 = bm25(1, 2);
        assertTensor(Map.of("0", d1e0, "2", d1e2), floats, d1.get("scores"), 1e-6);
        assertTensor(Map.of("0", d1e0), floats, d1.get("top1"), 1e-6);
        assertEquals((float) d1e0, (double) d1.get("best"), 1e-6);
        assertTensor(Map.of("0", d1e0, "2", d1e2), TensorType.fromSpec("tensor(c{})"), d1.get("elementwise(bm25(chunks),c)"), 1e-12);
        // bm25 of the whole field: a twice, b twice, length 6 over the average field length 14/4
        double fieldNorm = 1.2 * (0.25 + 0.75 * 6 / 3.5);
        assertEquals(Math.log(2) * 2 * 2.2 / (2 + fieldNorm) * 2, (double) d1.get("bm25(chunks)"), 1e-12);

        Map<String, Object> d2 = hits.get("d2"); // "" (element 0, empty), "a a b b c" (element 1, length 5)
        assertTensor(Map.of("1", 2 * bm25(2, 5)), floats, d2.get("scores"), 1e-6);
        assertTensor(Map.of("1", 2 * bm25(2, 5)), floats, d2.get("top1"), 1e-6);
    }

    @Test
    void elementSimilarityWorkedOutByHand() {
        Map<String, Map<String, Object>> hits = search("elementwise", terms("a", "b"));
        // d1, element 0 "a b a": a at 0, then b at 1 (distance 1, in query order): p 1, o 1, q 1, f 2/3
        double d1e0 = 0.35 + 0.15 + 0.30 + 0.20 * 2 / 3;
        // element 2 "b d": b alone: p of the length 2, 1 - (1/8)^2; o 1; q 1/2; f 1/2
        double p2 = 1 - 1 / 64.0, d1e2 = 0.35 * p2 + 0.15 + 0.30 * 0.5 + 0.20 * 0.5;
        Map<String, Object> d1 = hits.get("d1");
        assertEquals(Math.max(d1e0, d1e2), (double) d1.get("elementSimilarity(chunks)"), 1e-12);
        assertEquals((1 + p2) / 2, (double) d1.get("elementSimilarity(chunks).avgProximity"), 1e-12);
        assertEquals(1 + 0.5, (double) d1.get("elementSimilarity(chunks).sumQ"), 1e-12);
        // d2, element 1 "a a b b c": a at 0, b at 2 (distance 2): p 1 - (1/8)^2, o 1, q 1, f 2/5
        double d2e1 = 0.35 * p2 + 0.15 + 0.30 + 0.20 * 2 / 5;
        Map<String, Object> d2 = hits.get("d2");
        assertEquals(d2e1, (double) d2.get("elementSimilarity(chunks)"), 1e-12);
        assertEquals(p2, (double) d2.get("elementSimilarity(chunks).avgProximity"), 1e-12);
        assertEquals((float) (2 * bm25(2, 5)) + d2e1, (double) d2.get("relevance"), 1e-6);

        // b before a in the query: in d1's element 0 a (at 0) comes first, then b (at 1) is earlier in the query: o 0
        Map<String, Object> reversed = search("elementwise", terms("b", "a")).get("d1");
        assertEquals(Math.max(0.35 + 0.30 + 0.20 * 2 / 3, d1e2), (double) reversed.get("elementSimilarity(chunks)"), 1e-12);
        // a term occurring twice at the start: "a a b b c" with the query c, a: a at 0 first, then c at 4 (distance 4)
        Map<String, Object> d2ca = search("elementwise", terms("c", "a")).get("d2");
        double p4 = 1 - (3 / 8.0) * (3 / 8.0);
        assertEquals(0.35 * p4 + 0.15 * 0 + 0.30 + 0.20 * 2 / 5, (double) d2ca.get("elementSimilarity(chunks)"), 1e-12);
    }

    @Test
    void theProfilesBm25Parameters() {
        // k1 2 from bm25(chunks).k1, b 0.5 from the elementwise feature's own property (over bm25(chunks).b 0.25),
        // the average element length 4 from bm25(chunks).averageElementLength
        Map<String, Object> d1 = search("parameters", terms("a")).get("d1");
        double idf = Math.log(2), norm = 2 * (0.5 + 0.5 * 3 / 4.0);
        assertTensor(Map.of("0", idf * 2 * 3 / (2 + norm)), TensorType.fromSpec("tensor(chunk{})"),
                     d1.get("elementwise(bm25(chunks),chunk,double)"), 1e-12);
        assertEquals(idf * 2 * 3 / (2 + norm), (double) d1.get("relevance"), 1e-12);
    }

    @Test
    void whatProtonRefusesIsRefusedByName() {
        DocumentIndex index = new DocumentIndex(cluster.schema("doc"), new DocumentTypeManager(cluster.documentManager()));
        RankProfile profile = new RankProfile(new RankProfilesConfig.Rankprofile(new RankProfilesConfig.Rankprofile.Builder().name("p")));
        ExpressionCompiler compiler = new ExpressionCompiler(profile, null, index, List.of(), QueryProperties.none());
        assertRefused(compiler, "elementwise(nativeRank(chunks),chunk)", "not a feature with elementwise support");
        assertRefused(compiler, "elementwise(bm25(chunks),chunk,half)", "'half' is not a valid tensor cell type");
        assertRefused(compiler, "elementwise(bm25(nosuch),chunk)", "'nosuch' is not an indexed field");
        assertRefused(compiler, "elementwise(bm25(chunks))", "elementwise takes");
        assertRefused(compiler, "elementSimilarity(nosuch)", "'nosuch' is not an index field");
        assertRefused(compiler, "elementSimilarity(chunks).proximity", "has the outputs");
        assertEquals(TensorType.fromSpec("tensor<bfloat16>(x{})"), compiler.feature("elementwise(bm25(chunks),x,bfloat16)").type());
    }

    /**
     * Of a weighted set index field, each element's occurrences carry its weight (w): elementSimilarity and
     * elementCompleteness weigh the elements by it, and fieldTermMatch sums it over a term's occurrences.
     */
    @Test
    void aWeightedSetsElementsCarryTheirWeights(@TempDir Path dir) throws IOException {
        String schema = """
                schema doc {
                    document doc {
                        field tags type weightedset<string> { indexing: index }
                    }
                    rank-profile weighted {
                        first-phase { expression: elementSimilarity(tags) }
                        match-features {
                            elementCompleteness(tags).completeness elementCompleteness(tags).elementWeight
                            fieldTermMatch(tags,0).weight fieldTermMatch(tags,1).weight
                        }
                    }
                }
                """;
        ContentClusterConfig weighted = DwellPackage.oneNodeCluster(dir.resolve("app"), schema);
        DocumentType docType = new DocumentTypeManager(weighted.documentManager()).getDocumentType("doc");
        try (ContentNode weightedNode = new ContentNode(weighted, 0)) {
            Document document = new Document(docType, new DocumentId("id:test:doc::w1"));
            WeightedSet<StringFieldValue> tags = new WeightedSet<>(DataType.getWeightedSet(DataType.STRING));
            tags.put(DwellPackage.annotated(List.of("a", "b")), 10);
            tags.put(DwellPackage.annotated(List.of("b")), 3);
            tags.put(DwellPackage.annotated(List.of("c")), 1);
            document.setFieldValue("tags", tags);
            weightedNode.put(document);
            OrItem or = new OrItem();
            or.addItem(new WordItem("a", "tags"));
            or.addItem(new WordItem("b", "tags"));
            Query query = new Query("?ranking=weighted");
            query.getModel().getQueryTree().setRoot(or);
            query.getModel().prepare(query.getRanking());
            SearchProtocol.SearchReply reply = weightedNode.search(DwellPackage.request(query, 10));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            Map<String, Double> features = new HashMap<>();
            for (int i = 0; i < reply.getMatchFeatureNamesCount(); i++)
                features.put(reply.getMatchFeatureNames(i), reply.getHits(0).getMatchFeatures(i).getNumber());
            // "a b" (weight 10): both terms in order, adjacent, filling it: (0.35 + 0.15 + 0.30 + 0.20) * 10; "b" (3): 0.85 * 3
            assertEquals(10.0, reply.getHits(0).getRelevance(), 1e-12);
            assertEquals(1.0, features.get("elementCompleteness(tags).completeness"), 1e-12); // "a b": complete both ways
            assertEquals(10.0, features.get("elementCompleteness(tags).elementWeight"), 1e-12);
            assertEquals(10.0, features.get("fieldTermMatch(tags,0).weight"), 1e-12); // a occurs in "a b"
            assertEquals(13.0, features.get("fieldTermMatch(tags,1).weight"), 1e-12); // b in "a b" and "b"
        }
    }

    private static void assertRefused(ExpressionCompiler compiler, String feature, String message) {
        String error = assertThrows(UnsupportedFeatureException.class, () -> compiler.feature(feature)).getMessage();
        assertTrue(error.contains(message), error);
    }

    private static void assertTensor(Map<String, Double> cells, TensorType type, Object actual, double tolerance) {
        Tensor tensor = (Tensor) actual;
        assertEquals(type, tensor.type());
        assertEquals(cells.size(), tensor.size(), tensor.toString());
        cells.forEach((label, value) -> assertEquals(value, tensor.get(com.yahoo.tensor.TensorAddress.ofLabels(label)), tolerance, label));
    }

    /** The hits of a query, by document id: their match features (numbers, tensors) and relevance. */
    private static Map<String, Map<String, Object>> search(String profile, Item root) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        query.getModel().prepare(query.getRanking());
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 10));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        Map<com.google.protobuf.ByteString, String> ids = new HashMap<>();
        for (String id : List.of("d1", "d2", "d3", "d4"))
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

    @Test
    void elementCompletenessWorkedOutByHand() {
        // d1: "a b a" (both terms, length 3), "c", "b d" (b, length 2); d2: "", "a a b b c" (both, length 5); d3: "c d"
        Map<String, Map<String, Object>> hits = search("completeness", terms("a", "b"));
        assertEquals(List.of("d1", "d2"), hits.keySet().stream().sorted().toList());
        Map<String, Object> d1 = hits.get("d1"); // element 0: field completeness 2/3, query completeness 1
        assertEquals(0.5 * 2 / 3.0 + 0.5 * 1, (double) d1.get("relevance"), 1e-12);
        assertEquals(2 / 3.0, (double) d1.get("elementCompleteness(chunks).fieldCompleteness"), 1e-12);
        assertEquals(1.0, (double) d1.get("elementCompleteness(chunks).queryCompleteness"), 1e-12);
        assertEquals(1.0, (double) d1.get("elementCompleteness(chunks).elementWeight"), 1e-12);
        Map<String, Object> d2 = hits.get("d2"); // element 1: 2 of 5, both terms
        assertEquals(0.5 * 2 / 5.0 + 0.5 * 1, (double) d2.get("relevance"), 1e-12);
        assertEquals(2 / 5.0, (double) d2.get("elementCompleteness(chunks).fieldCompleteness"), 1e-12);

        // one term of two in d3's "c d": field completeness 1/2, query completeness 1/2. In d1, "a b a" gives 1/3 and 1/2
        // (0.4167), "b d" 1/2 and 1/2 (0.5): the later, better element is the best
        hits = search("completeness", terms("a", "d"));
        assertEquals(0.5 * 0.5 + 0.5 * 0.5, (double) hits.get("d3").get("relevance"), 1e-12);
        assertEquals(0.5, (double) hits.get("d1").get("relevance"), 1e-12);
        assertEquals(0.5, (double) hits.get("d1").get("elementCompleteness(chunks).fieldCompleteness"), 1e-12);
        // a term in no element of the document (e) leaves d4's "e" the only one: 1 of 1, half the query
        hits = search("completeness", terms("a", "e"));
        assertEquals(0.5 * 1 + 0.5 * 0.5, (double) hits.get("d4").get("relevance"), 1e-12);
    }

    @Test
    void elementCompletenessWithTheProfilesImportance() {
        Map<String, Map<String, Object>> hits = search("completeness_importance", terms("a", "b"));
        assertEquals(0.9 * 2 / 3.0 + 0.1 * 1, (double) hits.get("d1").get("relevance"), 1e-12);
        assertEquals(0.9 * 2 / 5.0 + 0.1 * 1, (double) hits.get("d2").get("relevance"), 1e-12);
    }

}
