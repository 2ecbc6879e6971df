package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hamming nearestNeighbor through a content node: int8 codes of packed bits (single and chunk{} multi-vector, with and
 * without hnsw), ranked by closeness, with distance, closeness, rawScore and itemRawScore against bit counts worked out
 * by hand; geodegrees between two cities.
 */
public class HammingSearchTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field name type string { indexing: index | summary }
                    field code type tensor<int8>(x[2]) {
                        indexing: attribute | index | summary
                        attribute { distance-metric: hamming }
                        index { hnsw { max-links-per-node: 4 } }
                    }
                    field chunks type tensor<int8>(chunk{},x[2]) {
                        indexing: attribute | summary
                        attribute { distance-metric: hamming }
                    }
                    field location type tensor<double>(x[2]) {
                        indexing: attribute | summary
                        attribute { distance-metric: geodegrees }
                    }
                }
                rank-profile code {
                    inputs { query(q) tensor<int8>(x[2]) }
                    first-phase { expression: closeness(field, code) }
                    match-features {
                        distance(field, code)
                        closeness(label, near)
                        rawScore(code)
                        itemRawScore(near)
                    }
                }
                rank-profile chunks {
                    inputs { query(q) tensor<int8>(x[2]) }
                    first-phase { expression: closeness(field, chunks) }
                    match-features { distance(field, chunks) }
                }
                rank-profile location {
                    inputs { query(q) tensor<double>(x[2]) }
                    first-phase { expression: closeness(field, location) }
                    match-features { distance(field, location) }
                }
            }
            """;

    private static final Map<ByteString, String> IDS = new HashMap<>();
    @TempDir static Path tmp;
    private static ContentNode node;

    @BeforeAll
    static void deploy() throws IOException {
        ContentClusterConfig cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
        node = new ContentNode(cluster, 0);
        // bits from the query [0x0f, 0x00]:
        // a [0x0f, 0x01]: 1; b [0x00, 0x00]: 4; c [-1 = 0xff, -128 = 0x80]: 4 + 1 = 5; d [0x0e, 0x03]: 1 + 2 = 3
        // chunks, the closest: a {0x70, 0x00}: 0x0f ^ 0x70 = 0x7f, 7 bits, and {0x0f, 0x0f}: 4 bits, so 4; b {0x0f, 0x00}: 0;
        // c none; d {-16 = 0xf0, 0x00}: 0x0f ^ 0xf0 = 0xff, 8
        put(type, "a", "alpha", "[15, 1]", "{{chunk:0,x:0}:112,{chunk:0,x:1}:0,{chunk:1,x:0}:15,{chunk:1,x:1}:15}", "[59.9139, 10.7522]");
        put(type, "b", "beta", "[0, 0]", "{{chunk:0,x:0}:15,{chunk:0,x:1}:0}", "[63.4305, 10.3951]");
        put(type, "c", "gamma", "[-1, -128]", null, "[37.7749, -122.4194]");
        put(type, "d", "delta", "[14, 3]", "{{chunk:x,x:0}:-16,{chunk:x,x:1}:0}", "[-33.8688, 151.2093]");
    }

    @AfterAll
    static void close() { if (node != null) node.close(); }

    @Test
    void codesRankByTheBitsThatDiffer() {
        for (boolean approximate : new boolean[] { true, false }) {
            NearestNeighborItem nearest = nearest("code", 3);
            nearest.setAllowApproximate(approximate);
            SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query("code", nearest, "[15, 0]"), 10));
            assertEquals(List.of("a", "d", "b"), ids(reply), reply.getErrorsList().toString());
            double[] bits = { 1, 3, 4 };
            for (int h = 0; h < 3; h++) {
                assertEquals(1 / (1 + bits[h]), reply.getHits(h).getRelevance(), 1e-12);
                assertEquals(bits[h], feature(reply, h, "distance(field,code)"));
                assertEquals(1 / (1 + bits[h]), feature(reply, h, "closeness(label,near)"), 1e-12);
                assertEquals(1 / (1 + bits[h]), feature(reply, h, "rawScore(code)"), 1e-12);
                assertEquals(1 / (1 + bits[h]), feature(reply, h, "itemRawScore(near)"), 1e-12);
            }
        }
    }

    @Test
    void aDocumentAnotherBranchMatchedHasClosenessButNoRawScore() {
        OrItem or = new OrItem();
        or.addItem(nearest("code", 1));
        or.addItem(new WordItem("gamma", "name", true));
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query("code", or, "[15, 0]"), 10));
        assertEquals(List.of("a", "c"), ids(reply), reply.getErrorsList().toString());
        assertEquals(0.5, feature(reply, 0, "rawScore(code)"), 1e-12);
        assertEquals(5, feature(reply, 1, "distance(field,code)"));
        assertEquals(1 / 6.0, feature(reply, 1, "closeness(label,near)"), 1e-12);
        assertEquals(0, feature(reply, 1, "rawScore(code)"), "proton sets the raw score only where the nearestNeighbor item matched");
        assertEquals(0, feature(reply, 1, "itemRawScore(near)"));
    }

    @Test
    void chunksRankByTheirClosestChunk() {
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query("chunks", nearest("chunks", 10), "[15, 0]"), 10));
        assertEquals(List.of("b", "a", "d"), ids(reply), reply.getErrorsList().toString());
        double[] bits = { 0, 4, 8 };
        for (int h = 0; h < 3; h++) assertEquals(bits[h], feature(reply, h, "distance(field,chunks)"));
    }

    @Test
    void locationsRankByGreatCircleKilometers() {
        // from Oslo: Oslo itself, Trondheim (391.48 km by the spherical law of cosines on the float coordinates), then San Francisco
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query("location", nearest("location", 3), "[59.9139, 10.7522]"), 10));
        assertEquals(List.of("a", "b", "c"), ids(reply), reply.getErrorsList().toString());
        assertEquals(0, feature(reply, 0, "distance(field,location)"));
        assertEquals(1, reply.getHits(0).getRelevance());
        assertEquals(391.48087239109964, feature(reply, 1, "distance(field,location)"), 1e-6);
        assertEquals(1 / (1 + 391.48087239109964), reply.getHits(1).getRelevance(), 1e-12);
    }

    private static NearestNeighborItem nearest(String field, int targetHits) {
        NearestNeighborItem nearest = new NearestNeighborItem(field, "q");
        nearest.setTargetNumHits(targetHits);
        nearest.setLabel("near");
        return nearest;
    }

    private static Query query(String profile, com.yahoo.prelude.query.Item root, String vector) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        String cells = profile.equals("location") ? "double" : "int8";
        query.getRanking().getFeatures().put("query(q)", Tensor.from("tensor<" + cells + ">(x[2]):" + vector));
        query.getModel().prepare(query.getRanking()); // unique ids, and the label's rank property, as the container sets them
        return query;
    }

    private static double feature(SearchProtocol.SearchReply reply, int hit, String name) {
        int index = reply.getMatchFeatureNamesList().indexOf(name);
        assertTrue(index >= 0, name + " in " + reply.getMatchFeatureNamesList());
        return reply.getHits(hit).getMatchFeatures(index).getNumber();
    }

    private static List<String> ids(SearchProtocol.SearchReply reply) {
        return reply.getHitsList().stream().map(hit -> IDS.get(hit.getGlobalId())).toList();
    }

    private static void put(DocumentType type, String id, String name, String code, String chunks, String location) {
        DocumentId documentId = new DocumentId("id:test:doc::" + id);
        Document document = new Document(type, documentId);
        document.setFieldValue("name", DwellPackage.annotated(List.of(name)));
        document.setFieldValue("code", new TensorFieldValue(Tensor.from("tensor<int8>(x[2]):" + code)));
        if (chunks != null) document.setFieldValue("chunks", new TensorFieldValue(Tensor.from("tensor<int8>(chunk{},x[2]):" + chunks)));
        document.setFieldValue("location", new TensorFieldValue(Tensor.from("tensor<double>(x[2]):" + location)));
        node.put(document);
        IDS.put(ByteString.copyFrom(documentId.getGlobalId()), id);
    }

}
