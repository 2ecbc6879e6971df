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
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multi-vector nearestNeighbor through a content node, as the container's dispatcher sends it: documents of several
 * two-dimensional vectors each, ranked by closeness(field, vecs), with distance, closeness, closest(vecs) and an
 * expression over closest(vecs) checked against distances worked out by hand.
 */
public class MultiVectorSearchTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field name type string { indexing: index | summary }
                    field vecs type tensor<float>(p{},x[2]) {
                        indexing: attribute | index | summary
                        attribute { distance-metric: euclidean }
                    }
                    field weights type tensor<float>(p{}) { indexing: attribute | summary }
                }
                rank-profile nn {
                    inputs { query(q) tensor<float>(x[2]) }
                    function weighted() { expression: reduce(closest(vecs) * attribute(weights), sum, p) }
                    first-phase { expression: closeness(field, vecs) }
                    match-features {
                        distance(field, vecs)
                        distance(vecs)
                        closest(vecs)
                        closest(vecs, near)
                        weighted
                    }
                }
            }
            """;

    private static final TensorType CLOSEST = TensorType.fromSpec("tensor<float>(p{})");
    private static final Map<ByteString, String> IDS = new HashMap<>();
    @TempDir static Path tmp;
    private static ContentNode node;

    @BeforeAll
    static void deploy() throws IOException {
        ContentClusterConfig cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
        node = new ContentNode(cluster, 0);
        // distances from the query (0,0): a: 5 (p "far" 10); b: 1 (p "y"); c: 2; d: no vectors; e: 0.5 (p "2", of three)
        put(type, "a", "alpha", "{{p:near,x:0}:3,{p:near,x:1}:4,{p:far,x:0}:10,{p:far,x:1}:0}", "{{p:near}:2,{p:far}:7}");
        put(type, "b", "beta", "{{p:x,x:0}:3,{p:x,x:1}:3,{p:y,x:0}:0,{p:y,x:1}:1}", "{{p:x}:5,{p:y}:3}");
        put(type, "c", "gamma", "{{p:only,x:0}:0,{p:only,x:1}:-2}", "{{p:only}:1}");
        put(type, "d", "delta", null, "{{p:none}:9}");
        put(type, "e", "alpha", "{{p:0,x:0}:1,{p:0,x:1}:0,{p:1,x:0}:0,{p:1,x:1}:1,{p:2,x:0}:0.3,{p:2,x:1}:0.4}", "{{p:2}:0.25,{p:9}:4}");
    }

    @AfterAll
    static void close() { if (node != null) node.close(); }

    @Test
    void documentsRankByTheirClosestVectorAndTargetHitsCountsDocuments() {
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(nearest(3)), 10));
        assertEquals(List.of("e", "b", "c"), ids(reply), reply.getErrorsList().toString());
        double[] distances = { 0.5, 1, 2 };
        String[] closest = { "2", "y", "only" };
        double[] weighted = { 0.25, 3, 1 };
        for (int h = 0; h < 3; h++) {
            assertEquals(1 / (1 + distances[h]), reply.getHits(h).getRelevance(), 1e-6);
            assertEquals(distances[h], feature(reply, h, "distance(field,vecs)"), 1e-6);
            assertEquals(distances[h], feature(reply, h, "distance(vecs)"), 1e-6);
            assertEquals(Tensor.from(CLOSEST, "{{p:" + closest[h] + "}:1.0}"), tensorFeature(reply, h, "closest(vecs)"));
            assertEquals(Tensor.from(CLOSEST, "{{p:" + closest[h] + "}:1.0}"), tensorFeature(reply, h, "closest(vecs,near)"));
            assertEquals(weighted[h], feature(reply, h, "weighted"), 1e-6);
        }
    }

    @Test
    void aDocumentAnotherBranchMatchedGetsItsDistanceAndOneWithoutVectorsAnEmptyClosest() {
        OrItem or = new OrItem();
        or.addItem(nearest(1));
        or.addItem(new WordItem("alpha", "name", true));
        or.addItem(new WordItem("delta", "name", true));
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(or), 10));
        assertEquals(List.of("e", "a", "d"), ids(reply), reply.getErrorsList().toString());
        assertEquals(5, feature(reply, 1, "distance(field,vecs)"), 1e-6);
        assertEquals(Tensor.from(CLOSEST, "{{p:near}:1.0}"), tensorFeature(reply, 1, "closest(vecs)"));
        assertEquals(2, feature(reply, 1, "weighted"), 1e-6);
        assertEquals(0, reply.getHits(2).getRelevance(), "closeness of a document without vectors");
        assertEquals(Double.MAX_VALUE, feature(reply, 2, "distance(field,vecs)"));
        assertEquals(Tensor.Builder.of(CLOSEST).build(), tensorFeature(reply, 2, "closest(vecs)"));
        assertEquals(0, feature(reply, 2, "weighted"));
    }

    @Test
    void distanceThresholdDropsDocumentsWhoseClosestVectorIsFarther() {
        NearestNeighborItem nearest = nearest(10);
        nearest.setDistanceThreshold(1.5);
        assertEquals(List.of("e", "b"), ids(node.search(DwellPackage.request(query(nearest), 10))));
    }

    @Test
    void closestOfAFieldOfTwoMappedDimensionsIsRefusedByName(@TempDir Path dir) throws IOException {
        // Vespa's closest takes any number of mapped dimensions (its config model refuses closest of a dense field itself)
        String schema = """
                schema doc {
                    document doc {
                        field grid type tensor<float>(p{},q{},x[2]) { indexing: attribute }
                    }
                    rank-profile grid { first-phase { expression: sum(closest(grid)) } }
                }
                """;
        List<String> errors = ai.dwell.runtime.rank.RankSetupVerifier.verify(DwellPackage.oneNodeCluster(dir.resolve("app"), schema));
        assertTrue(errors.stream().anyMatch(e -> e.contains("'grid'") && e.contains("closest(grid)") &&
                                                 e.contains("one mapped and one indexed dimension")), String.valueOf(errors));
    }

    private static NearestNeighborItem nearest(int targetHits) {
        NearestNeighborItem nearest = new NearestNeighborItem("vecs", "q");
        nearest.setTargetNumHits(targetHits);
        nearest.setLabel("near");
        return nearest;
    }

    private static Query query(com.yahoo.prelude.query.Item root) {
        Query query = new Query("?ranking=nn");
        query.getModel().getQueryTree().setRoot(root);
        query.getRanking().getFeatures().put("query(q)", Tensor.from("tensor<float>(x[2]):[0,0]"));
        query.getModel().prepare(query.getRanking()); // unique ids, and the label's rank property, as the container sets them
        return query;
    }

    private static double feature(SearchProtocol.SearchReply reply, int hit, String name) {
        int index = reply.getMatchFeatureNamesList().indexOf(name);
        assertTrue(index >= 0, name + " in " + reply.getMatchFeatureNamesList());
        return reply.getHits(hit).getMatchFeatures(index).getNumber();
    }

    private static Tensor tensorFeature(SearchProtocol.SearchReply reply, int hit, String name) {
        int index = reply.getMatchFeatureNamesList().indexOf(name);
        assertTrue(index >= 0, name + " in " + reply.getMatchFeatureNamesList());
        return TypedBinaryFormat.decode(Optional.empty(), GrowableByteBuffer.wrap(reply.getHits(hit).getMatchFeatures(index).getTensor().toByteArray()));
    }

    private static List<String> ids(SearchProtocol.SearchReply reply) {
        return reply.getHitsList().stream().map(hit -> IDS.get(hit.getGlobalId())).toList();
    }

    private static void put(DocumentType type, String id, String name, String vecs, String weights) {
        DocumentId documentId = new DocumentId("id:test:doc::" + id);
        Document document = new Document(type, documentId);
        document.setFieldValue("name", DwellPackage.annotated(List.of(name)));
        if (vecs != null) document.setFieldValue("vecs", new TensorFieldValue(Tensor.from("tensor<float>(p{},x[2]):" + vecs)));
        document.setFieldValue("weights", new TensorFieldValue(Tensor.from("tensor<float>(p{}):" + weights)));
        node.put(document);
        IDS.put(ByteString.copyFrom(documentId.getGlobalId()), id);
    }

}
