package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.query.ProtobufRequests;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.rank.QueryProperties;
import ai.dwell.runtime.rank.RankProfile;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.TrueItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.search.grouping.vespa.GroupingExecutor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One query ranked on 1 to 4 threads gives the same reply as on one: hits, order, relevance bit for bit,
 * match features, total count, coverage, match-phase degradation, sort data and grouping. dwell's packaged
 * profiles on one node holding the same 3,000 comments (with ties) for each thread count.
 */
public class IntraQueryThreadsTest {

    private static final long NOW = 1_800_000_000L;
    private static final int MAX_THREADS = 4;

    /** nodes.get(t - 1) ranks every query on t threads (no minimum of matches per thread). */
    private static final List<ContentNode> nodes = new ArrayList<>();
    private static final List<SearchThreads> policies = new ArrayList<>();

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        for (int t = 1; t <= MAX_THREADS; t++) {
            SearchThreads threads = SearchThreads.fixed(t, 0);
            policies.add(threads);
            nodes.add(new ContentNode(cluster, 0, threads));
        }
        DocumentTypeManager types = indexing.documentTypes();
        DocumentType authorType = types.getDocumentType("author"), commentType = types.getDocumentType("comment");
        Random random = new Random(7);
        for (int a = 0; a < 50; a++) {
            Document author = new Document(authorType, new DocumentId("id:dwell:author::u" + a));
            author.setFieldValue("author_id", new StringFieldValue("u" + a));
            author.setFieldValue("reputation", new FloatFieldValue(a % 10 / 10f));
            author.setFieldValue("comment_count", new IntegerFieldValue(a));
            put(indexing.process(author));
        }
        for (int i = 0; i < 3000; i++) {
            Document comment = new Document(commentType, new DocumentId("id:dwell:comment::c" + i));
            String author = "u" + (i % 60); // some authors are missing
            comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
            comment.setFieldValue("article_id", new StringFieldValue(i % 3 == 0 ? "small" : "big"));
            comment.setFieldValue("author_id", new StringFieldValue(author));
            comment.setFieldValue("author_ref", new ReferenceFieldValue((ReferenceDataType) commentType.getField("author_ref").getDataType(),
                                                                       new DocumentId("id:dwell:author::" + author)));
            comment.setFieldValue("text", new StringFieldValue("comment " + i + (i % 7 == 0 ? " quick fox" : " slow dog")));
            // coarse values, so that many comments tie on every score
            comment.setFieldValue("created_at", new LongFieldValue(NOW - 3600L * random.nextInt(48)));
            comment.setFieldValue("upvotes", new IntegerFieldValue(random.nextInt(5)));
            comment.setFieldValue("downvotes", new IntegerFieldValue(random.nextInt(3)));
            comment.setFieldValue("reply_count", new IntegerFieldValue(random.nextInt(2)));
            comment.setFieldValue("report_count", new IntegerFieldValue(random.nextInt(40) == 0 ? 1 : 0));
            comment.setFieldValue("reads", new IntegerFieldValue(random.nextInt(3)));
            comment.setFieldValue("read_ms", new LongFieldValue(random.nextInt(3) * 4000L));
            put(indexing.process(comment));
        }
    }

    private static void put(Document document) {
        for (ContentNode node : nodes) node.put(document.clone());
    }

    @AfterAll
    static void tearDown() {
        nodes.forEach(ContentNode::close);
        policies.forEach(SearchThreads::close);
    }

    @Test
    void everyProfileGivesTheSameHitsOnAnyNumberOfThreads() {
        for (String profile : List.of("freshness", "neural", "neural_onnx")) {
            assertSameOnAllThreads(query(profile, new WordItem("big", "article_id")), 50);
            assertSameOnAllThreads(query(profile, new TrueItem()), 10); // 3,000 matches: beyond the 2,000 reranked
            Query offset = query(profile, new TrueItem());
            offset.setOffset(1990); // across the edge of the rerank window
            assertSameOnAllThreads(offset, 30);
        }
    }

    @Test
    void aSmallRerankWindowIsSplitAsOnOneThread() {
        for (String profile : List.of("neural", "neural_onnx")) {
            Query query = query(profile, new TrueItem());
            query.getRanking().getProperties().put("vespa.hitcollector.heapsize", "7");
            SearchProtocol.SearchReply reply = assertSameOnAllThreads(query, 20);
            assertEquals(20, reply.getHitsCount());
        }
    }

    @Test
    void matchPhaseLimitingDegradesAsOnOneThread() {
        Query query = query("neural", new WordItem("big", "article_id"));
        query.getRanking().getProperties().put("vespa.matchphase.degradation.maxhits", "150");
        SearchProtocol.SearchReply reply = assertSameOnAllThreads(query, 100);
        assertTrue(reply.getDegradedByMatchPhase());
        assertTrue(reply.getCoverageDocs() < reply.getActiveDocs());
    }

    @Test
    void sortingAndGroupingAreAsOnOneThread() {
        Query sorted = query("freshness", new WordItem("big", "article_id"));
        sorted.getRanking().setSorting("-upvotes +created_at");
        assertFalse(assertSameOnAllThreads(sorted, 40).getHits(0).getSortData().isEmpty());

        Query grouped = query("neural", new TrueItem());
        GroupingExecutor.setGroupingList(grouped, GroupingTest.groupings("all(group(author_id) max(3) each(max(2) each(output(summary()))))"));
        assertFalse(assertSameOnAllThreads(grouped, 0).getGroupingBlob().isEmpty());
    }

    @Test
    void theNumberOfThreadsFollowsTheSearchesInFlight() {
        RankProfile profile = DwellPackage.cluster().schemas().get("comment").rankProfiles().rankprofile().stream()
                                          .filter(p -> p.name().equals("neural")).map(RankProfile::new).findFirst().orElseThrow();
        try (SearchThreads adaptive = SearchThreads.adaptive(4, 1000)) {
            QueryProperties query = QueryProperties.none();
            List<SearchThreads.InFlight> searches = new ArrayList<>();
            searches.add(adaptive.enter());
            assertEquals(4, adaptive.threadsFor(profile, query, 100_000), "an idle node gives a query every core");
            assertEquals(3, adaptive.threadsFor(profile, query, 2500), "but not fewer than 1000 matches a thread");
            assertEquals(1, adaptive.threadsFor(profile, query, 900));
            searches.add(adaptive.enter());
            assertEquals(2, adaptive.threadsFor(profile, query, 100_000));
            searches.add(adaptive.enter());
            assertEquals(1, adaptive.threadsFor(profile, query, 100_000));
            for (int i = 0; i < 5; i++) searches.add(adaptive.enter());
            assertEquals(1, adaptive.threadsFor(profile, query, 100_000), "a loaded node ranks each query on one thread");
            searches.forEach(SearchThreads.InFlight::close);
            searches.clear();
            try (SearchThreads.InFlight alone = adaptive.enter()) {
                assertEquals(4, adaptive.threadsFor(profile, query, 100_000));
            }
        }
        try (SearchThreads adaptive = SearchThreads.adaptive(4, 0)) {
            for (int i = 0; i < 10; i++) adaptive.enter();
            assertEquals(4, adaptive.threadsFor(profile, properties("dwell.threadspersearch", "4"), 100_000), "a query may name a static number");
            assertEquals(1, adaptive.threadsFor(profile, properties("dwell.threadspersearch", "adaptive"), 100_000));
            assertEquals(2, adaptive.threadsFor(profile, properties("vespa.matching.numthreadspersearch", "2", "dwell.threadspersearch", "4"), 100_000),
                         "num-threads-per-search caps what the query names");
        }
        try (SearchThreads fixed = SearchThreads.fixed(3, 0)) {
            assertEquals(Runtime.getRuntime().availableProcessors(), fixed.threadsFor(profile, properties("dwell.threadspersearch", "adaptive"), 100_000),
                         "a query asking for adaptive on an idle node: every core");
            for (int i = 0; i < 10; i++) fixed.enter();
            assertEquals(3, fixed.threadsFor(profile, QueryProperties.none(), 100_000), "a static setting ignores load");
            assertEquals(2, fixed.threadsFor(profile, QueryProperties.none(), 2), "but never more threads than matches");
        }
    }

    @Test
    void numThreadsPerSearchInTheProfileIsACap() throws Exception {
        Path copy = Files.createTempDirectory("dwell-threads");
        copyTree(DwellPackage.dir(), copy);
        Path schema = copy.resolve("schemas/comment.sd");
        String text = Files.readString(schema);
        String withCap = text.replaceFirst("(rank-profile neural inherits [^{]*\\{)", "$1\n        num-threads-per-search: 2\n        min-hits-per-thread: 10\n");
        assertTrue( ! withCap.equals(text), "the neural profile was found in " + schema);
        Files.writeString(schema, withCap);
        ContentClusterConfig cluster = ai.dwell.runtime.serve.deploy.ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);
        RankProfile neural = cluster.schemas().get("comment").rankProfiles().rankprofile().stream()
                                    .filter(p -> p.name().equals("neural")).map(RankProfile::new).findFirst().orElseThrow();
        assertEquals("2", neural.property("vespa.matching.numthreadspersearch").orElseThrow());
        try (SearchThreads adaptive = SearchThreads.adaptive(8, 1000); SearchThreads.InFlight alone = adaptive.enter()) {
            assertEquals(2, adaptive.threadsFor(neural, QueryProperties.none(), 100_000), "the profile caps the adaptive policy");
            assertEquals(2, adaptive.threadsFor(neural, QueryProperties.none(), 15), "and its min-hits-per-thread replaces the runtime's");
            assertEquals(1, adaptive.threadsFor(neural, QueryProperties.none(), 10));
        }
    }

    @Test
    void theTraceSaysHowManyThreadsRankedTheQuery() {
        Query query = query("freshness", new TrueItem());
        query.getTrace().setLevel(3);
        String trace = new String(nodes.get(2).search(DwellPackage.request(query, 10)).getSlimeTrace().toByteArray(), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(trace.contains("on 3 threads"), trace);
    }

    @Test
    void policiesAreReadFromTheirSetting() {
        try (SearchThreads adaptive = SearchThreads.parse("adaptive", "500"); SearchThreads two = SearchThreads.parse(" 2 ", "0")) {
            assertEquals("adaptive", adaptive.policy());
            assertEquals("2", two.policy());
        }
        for (String bad : List.of("0", "many", "-1"))
            assertEquals(IllegalArgumentException.class, org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                                                                                                        () -> SearchThreads.parse(bad, "0")).getClass(), bad);
    }

    /** Query properties as a query's rank properties (name, value, name, value ...). */
    private static QueryProperties properties(String... nameValues) {
        Query query = new Query("?ranking=neural");
        for (int i = 0; i < nameValues.length; i += 2) query.getRanking().getProperties().put(nameValues[i], nameValues[i + 1]);
        return ProtobufRequests.properties(DwellPackage.request(query, 10));
    }

    /** Searches on every node, asserts every reply equals the one-thread reply, and returns that. */
    private static SearchProtocol.SearchReply assertSameOnAllThreads(Query query, int hits) {
        SearchProtocol.SearchRequest request = DwellPackage.request(query, hits);
        SearchProtocol.SearchReply expected = nodes.get(0).search(request);
        assertEquals(0, expected.getErrorsCount(), expected.getErrorsList().toString());
        assertTrue(expected.getTotalHitCount() > 0);
        for (int t = 2; t <= MAX_THREADS; t++) {
            SearchProtocol.SearchReply reply = nodes.get(t - 1).search(request);
            assertEquals(expected.getHitsCount(), reply.getHitsCount(), t + " threads");
            for (int h = 0; h < expected.getHitsCount(); h++) {
                assertEquals(expected.getHits(h).getGlobalId(), reply.getHits(h).getGlobalId(), "hit " + h + " on " + t + " threads");
                assertEquals(Double.doubleToLongBits(expected.getHits(h).getRelevance()), Double.doubleToLongBits(reply.getHits(h).getRelevance()),
                             "relevance of hit " + h + " on " + t + " threads");
            }
            assertEquals(expected, reply, "the whole reply on " + t + " threads");
        }
        return expected;
    }

    private static Query query(String profile, Item root) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        return query;
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (var paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) Files.createDirectories(target);
                else Files.copy(path, target);
            }
        }
    }

}
