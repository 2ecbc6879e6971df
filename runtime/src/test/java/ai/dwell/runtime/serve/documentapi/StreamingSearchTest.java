package ai.dwell.runtime.serve.documentapi;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.dwell.runtime.serve.deploy.StreamingTypes;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.documentapi.VisitorSession;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.messagebus.routing.Route;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import com.yahoo.vdslib.SearchResult;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Streaming search end to end through Vespa's own container side: the container's StreamingVisitor (which
 * StreamingBackend runs for a streaming query) builds the visit with its library parameters, the runtime's visitor
 * session answers it from a content node, and the visitor's merged hits, total count and summaries are checked
 * against values worked out by hand. Two groups: "a" holds documents 1, 2, 3, "b" holds 4 and 5.
 */
public class StreamingSearchTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field title type string { indexing: index | summary }
                    field year type int { indexing: attribute | summary }
                    field v type tensor<float>(x[2]) {
                        indexing: attribute | summary
                        attribute { distance-metric: euclidean }
                    }
                }
                rank-profile default {
                    inputs { query(q) tensor<float>(x[2]) }
                    first-phase { expression: closeness(field,v) }
                    match-features: distance(field,v) closeness(field,v)
                    summary-features: closeness(field,v)
                }
                rank-profile by_year {
                    first-phase { expression: attribute(year) }
                }
            }
            """;

    /** id, group, title, year, vector. */
    private static final Object[][] DOCUMENTS = {
            {1, "a", "red apple pie", 2001, new float[] {0, 0}},
            {2, "a", "green apple", 2002, new float[] {3, 4}},
            {3, "a", "blue sky", 2003, new float[] {1, 0}},
            {4, "b", "red car", 2004, new float[] {0, 1}},
            {5, "b", "apple tree", 2005, new float[] {6, 8}},
    };

    @TempDir static Path tmp;
    private static ContentNode node;
    private static final List<Document> stored = new ArrayList<>();

    @BeforeAll
    static void feed() throws Exception {
        Path app = tmp.resolve("app");
        Files.createDirectories(app.resolve("schemas"));
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                    <container id="default" version="1.0"><document-api/><search/><nodes><node hostalias="node1"/></nodes></container>
                    <content id="mail" version="1.0">
                        <redundancy>1</redundancy>
                        <documents><document type="doc" mode="streaming"/></documents>
                        <nodes><node hostalias="node1" distribution-key="0"/></nodes>
                    </content>
                </services>
                """);
        Files.writeString(app.resolve("schemas/doc.sd"), SCHEMA);
        VespaModel model = DwellPackage.model(app);
        ContentClusterConfig cluster = ContentClusterConfigs.from(model, "mail", app);
        IndexingScripts indexing = new IndexingScripts(
                StreamingTypes.of(model).tokenizing(model.getConfig(IlscriptsConfig.class, "default/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor")),
                new DocumentTypeManager(cluster.documentManager()), new SimpleLinguistics(), Map.of());
        node = new ContentNode(cluster, 0);
        DocumentType type = indexing.documentTypes().getDocumentType("doc");
        for (Object[] d : DOCUMENTS) {
            Document doc = new Document(type, new DocumentId("id:test:doc:g=" + d[1] + ":" + d[0]));
            doc.setFieldValue("title", new StringFieldValue((String) d[2]));
            doc.setFieldValue("year", new IntegerFieldValue((Integer) d[3]));
            float[] v = (float[]) d[4];
            doc.setFieldValue("v", new TensorFieldValue(Tensor.from("tensor<float>(x[2]):[" + v[0] + "," + v[1] + "]")));
            stored.add(doc);
            node.put(indexing.process(doc));
        }
        DocumentAccesses.installStreaming(name -> name.equals("mail") ? List.of(node) : List.of());
    }

    @AfterAll
    static void close() {
        DocumentAccesses.installStreaming(name -> List.of());
        node.close();
    }

    /** What the container's visitor has once the visit is done: hits in order with their ranks, the total, summaries. */
    record Visited(int total, List<String> ids, List<Double> ranks, List<SearchResult.Hit> hits, Map<String, ?> summaries, List<String> errors) {}

    /** A streaming query with this root item, its parameters (streaming.groupname=..., ranking=...) and query vector q. */
    private Visited stream(Item root, String parameters, float... q) throws Exception {
        Query query = new Query("?timeout=20s&" + parameters); // the first query loads classes for a second
        query.getModel().getQueryTree().setRoot(root);
        if (q.length > 0) query.getRanking().getFeatures().put("query(q)", Tensor.from("tensor<float>(x[2]):[" + q[0] + "," + q[1] + "]"));
        return visit(query);
    }

    private static NearestNeighborItem nearest(int targetHits) {
        NearestNeighborItem item = new NearestNeighborItem("v", "q");
        item.setTargetNumHits(targetHits);
        return item;
    }

    private Visited visit(Query query) throws Exception {
        Class<?> visitorClass = Class.forName("com.yahoo.vespa.streamingvisitors.StreamingVisitor");
        Class<?> factoryClass = Class.forName("com.yahoo.vespa.streamingvisitors.StreamingVisitor$VisitorSessionFactory");
        Class<?> contextClass = Class.forName("com.yahoo.vespa.streamingvisitors.Visitor$Context");
        Object factory = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {factoryClass}, (proxy, method, args) -> {
            if ( ! method.getName().equals("createVisitorSession")) throw new UnsupportedOperationException(method.getName());
            return (VisitorSession) new EngineVisitorSession(backend(), (VisitorParameters) args[0]);
        });
        Constructor<?> contextConstructor = contextClass.getDeclaredConstructor(String.class, String.class);
        contextConstructor.setAccessible(true);
        Constructor<?> constructor = visitorClass.getDeclaredConstructor(Query.class, Route.class, factoryClass, contextClass);
        constructor.setAccessible(true);
        Object visitor = constructor.newInstance(query, Route.parse("mail"), factory, contextConstructor.newInstance("mail", "doc"));
        Method doSearch = visitorClass.getDeclaredMethod("doSearch");
        doSearch.setAccessible(true);
        doSearch.invoke(visitor);
        @SuppressWarnings("unchecked") List<SearchResult.Hit> hits = (List<SearchResult.Hit>) call(visitorClass, visitor, "getHits");
        List<String> ids = new ArrayList<>();
        List<Double> ranks = new ArrayList<>();
        for (SearchResult.Hit hit : hits) {
            ids.add(hit.getDocId().substring(hit.getDocId().lastIndexOf(':') + 1));
            ranks.add(hit.getRank());
        }
        @SuppressWarnings("unchecked") Map<String, ?> summaries = (Map<String, ?>) call(visitorClass, visitor, "getSummaryMap");
        @SuppressWarnings("unchecked") java.util.Set<String> errors = (java.util.Set<String>) call(visitorClass, visitor, "getErrors");
        return new Visited((Integer) call(visitorClass, visitor, "getTotalHitCount"), ids, ranks, hits, summaries, List.copyOf(errors));
    }

    private static Object call(Class<?> type, Object target, String name) throws Exception {
        Method method = type.getDeclaredMethod(name);
        method.setAccessible(true);
        return method.invoke(target);
    }

    private static DocumentBackend backend() {
        return new VisitOnlyBackend((bucketSpace, cluster, consumer) -> {
            assertEquals("mail", cluster);
            if ("default".equals(bucketSpace)) stored.forEach(consumer);
        });
    }

    // Distances from q = (0,0): 1 → 0, 2 → 5, 3 → 1, 4 → 1, 5 → 10; closeness is 1 / (1 + distance).

    @Test
    void nearestNeighborRanksExactlyTheGroupsDocuments() throws Exception {
        Visited a = stream(nearest(10), "streaming.groupname=a", 0, 0);
        assertEquals(List.of(), a.errors());
        assertEquals(3, a.total());
        assertEquals(List.of("1", "3", "2"), a.ids());
        assertEquals(List.of(1.0, 0.5, 1.0 / 6), a.ranks());
        var features = a.hits().get(2).getMatchFeatures().orElseThrow();
        assertEquals(5.0, features.field("distance(field,v)").asDouble(), 1e-6);   // distance(field,v) of document 2
        assertEquals(1.0 / 6, features.field("closeness(field,v)").asDouble(), 1e-6);
        assertEquals(3, a.summaries().size());

        Visited b = stream(nearest(10), "streaming.groupname=b", 0, 0);
        assertEquals(2, b.total());
        assertEquals(List.of("4", "5"), b.ids());
        assertEquals(List.of(0.5, 1.0 / 11), b.ranks());
    }

    @Test
    void targetHitsAreTheBestOfTheGroupNotOfTheWholeIndex() throws Exception {
        // over all documents, the best one is document 1 (group a); group b's best is document 4
        Visited b = stream(nearest(1), "streaming.groupname=b", 0, 0);
        assertEquals(1, b.total());
        assertEquals(List.of("4"), b.ids());
        // and its summary carries the profile's summary features: document 4 at distance 1, closeness 1/2
        assertEquals(0.5, summaryFeature(b, "id:test:doc:g=b:4", "closeness(field,v)"), 1e-9);
    }

    /** A summary feature of a hit, from the summary the container gets: the Slime magic id, then the docsum. */
    private static double summaryFeature(Visited visited, String id, String feature) {
        byte[] summary = ((com.yahoo.vdslib.DocumentSummary.Summary) visited.summaries().get(id)).getSummary();
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(summary).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x55555555, buffer.getInt());
        var docsum = com.yahoo.slime.BinaryFormat.decode(summary, 4, summary.length - 4).get();
        return docsum.field("summaryfeatures").field(feature).asDouble();
    }

    @Test
    void textTermsMatchOnlyTheGroupsDocuments() throws Exception {
        Visited a = stream(new WordItem("apple", "title"), "streaming.groupname=a&ranking=by_year");
        assertEquals(2, a.total());
        assertEquals(List.of("2", "1"), a.ids());
        assertEquals(List.of(2002.0, 2001.0), a.ranks());
        Visited b = stream(new WordItem("apple", "title"), "streaming.groupname=b&ranking=by_year");
        assertEquals(1, b.total());
        assertEquals(List.of("5"), b.ids());
    }

    @Test
    void nearestNeighborWithAFilter() throws Exception {
        AndItem and = new AndItem();
        and.addItem(nearest(10));
        and.addItem(new WordItem("red", "title"));
        Visited a = stream(and, "streaming.groupname=a", 0, 0);
        assertEquals(1, a.total());
        assertEquals(List.of("1"), a.ids());
    }

    @Test
    void aSelectionSelectsTheDocuments() throws Exception {
        Visited selected = stream(new WordItem("red", "title"), "ranking=by_year&streaming.selection=" +
                                  java.net.URLEncoder.encode("doc.year > 2003", java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(1, selected.total());
        assertEquals(List.of("4"), selected.ids());
    }

    @Test
    void hitsAndOffsetPageTheMergedHits() throws Exception {
        Visited page = stream(nearest(10), "streaming.groupname=a&hits=1&offset=1", 0, 0);
        assertEquals(3, page.total());
        assertEquals(List.of("3"), page.ids());
    }

    @Test
    void sortingIsRefusedByName() throws Exception {
        Visited sorted = stream(new WordItem("apple", "title"), "streaming.groupname=a&sorting=-year");
        assertEquals(0, sorted.ids().size());
        assertTrue(sorted.errors().toString().contains("sorting (order by, sorting=) is not supported"), sorted.errors().toString());
    }

    @Test
    void substringAndPrefixTermsOnATextFieldAreRefusedByNameInTheResultsErrors() throws Exception {
        // Vespa's search visitor matches these on any string field; this engine matches prefix on attributes only
        for (com.yahoo.prelude.query.TermItem item : List.of(new com.yahoo.prelude.query.PrefixItem("app"), new com.yahoo.prelude.query.SubstringItem("ppl"),
                                                             new com.yahoo.prelude.query.SuffixItem("ple"))) {
            item.setIndexName("title");
            Visited visited = stream(item, "streaming.groupname=a");
            assertEquals(List.of(), visited.ids(), item.toString());
            assertEquals(1, visited.errors().size(), item.toString());
            String name = item.getItemType().toString().toLowerCase();
            assertTrue(visited.errors().get(0).toLowerCase().contains(name), visited.errors().toString());
        }
    }

}
