package ai.dwell.searchers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ArticleViewCacheSearcher at the bottom of dwell's chain (article view, a stand-in for the model searcher,
 * exploration, the cache) over a stand-in content cluster that counts the queries reaching it, on a clock the
 * test moves: the staleness bound, the key, bypasses, what is not cached, and exploration per view on a hit.
 */
public class ArticleViewCacheSearcherTest {

    private static final long MILLI = 1_000_000;

    @TempDir Path dir;
    private final AtomicLong clock = new AtomicLong(1_000 * MILLI);
    private ExplorationSearcher exploration;
    private CommentsBackend backend;
    private List<Searcher> chain;

    /** Records the model version a request names (test.version), as RankingModelSearcher records the live one. */
    private static final class ModelVersion extends Searcher {
        @Override public Result search(Query query, Execution execution) {
            ChainProperties.setModelVersion(query, query.properties().getLong("test.version", 1L));
            return execution.search(query);
        }
    }

    /** Fails the queries that reach it while failing is set, as a content node that times out would. */
    private static final class Failing extends Searcher {
        final AtomicBoolean failing = new AtomicBoolean();
        @Override public Result search(Query query, Execution execution) {
            if (failing.get()) return new Result(query, ErrorMessage.createTimeout("a content node timed out"));
            return execution.search(query);
        }
    }

    private final Failing failing = new Failing();

    @BeforeEach
    void setUp() {
        exploration = new ExplorationSearcher(new ExplorationConfig.Builder().impressionLog(dir.resolve("impressions.jsonl").toString()).build());
        backend = new CommentsBackend(IntStream.range(0, 30).mapToObj(i -> 30.0 - i).toList());
        chain = chain(cacheSearcher(new ArticleViewCacheConfig.Builder().maxAgeMillis(1000).alsoFill("embedding")), backend);
    }

    private ArticleViewCacheSearcher cacheSearcher(ArticleViewCacheConfig.Builder config) {
        return new ArticleViewCacheSearcher(config.build(), clock::get);
    }

    private List<Searcher> chain(ArticleViewCacheSearcher cache, Searcher backend) {
        return List.of(SearchChains.articleSearcher(), new ModelVersion(), exploration, cache, failing, backend);
    }

    @AfterEach
    void tearDown() { exploration.close(); }

    private Result search(String request) { return SearchChains.search(chain, request + "&trace.level=1"); }

    private static String trace(Result result) {
        StringBuilder text = new StringBuilder();
        result.getQuery().getContext(false).getTrace().traceNode().accept(new com.yahoo.yolean.trace.TraceVisitor() {
            @Override public void visit(com.yahoo.yolean.trace.TraceNode node) {
                if (node.payload() != null) text.append(node.payload()).append('\n');
            }
        });
        return text.toString();
    }

    private static List<String> ids(Result result) {
        return result.hits().asList().stream().map(hit -> hit.getField("documentid").toString()).toList();
    }

    @Test
    void expiredWindowsAreDroppedAsTheCacheIsWrittenNotOnlyWhenItIsFull() {
        ArticleViewCacheSearcher cache = cacheSearcher(new ArticleViewCacheConfig.Builder().maxAgeMillis(1000).maxEntries(1000));
        chain = chain(cache, backend);
        for (int article = 0; article < 5; article++) search("/search/?article=a" + article + "&hits=5");
        assertEquals(5, cache.cachedWindows());
        clock.addAndGet(200 * MILLI);
        search("/search/?article=b1&hits=5");
        assertEquals(6, cache.cachedWindows(), "nothing has expired yet");
        clock.addAndGet(900 * MILLI); // the first five are 1100 ms old, b1 900 ms
        search("/search/?article=b2&hits=5");
        assertEquals(2, cache.cachedWindows(), "the expired five are gone, though far below maxEntries");
        assertEquals(7, backend.searches());
        search("/search/?article=b1&hits=5");
        assertEquals(7, backend.searches(), "a window within maxAge is still served");
    }

    @Test
    void aWindowIsServedForAtMostMaxAgeAfterTheContentClusterProducedIt() {
        Result first = search("/search/?article=a1&hits=5");
        assertEquals(1, backend.searches());
        assertTrue(trace(first).contains("ArticleViewCache: miss"), trace(first));

        clock.addAndGet(1000 * MILLI);
        Result cached = search("/search/?article=a1&hits=5");
        assertEquals(1, backend.searches(), "a view 1000 ms later is served from the window");
        assertTrue(trace(cached).contains("ArticleViewCache: hit, age 1000 ms"), trace(cached));
        assertEquals(ids(first), ids(cached));
        assertEquals(first.getTotalHitCount(), cached.getTotalHitCount());
        assertEquals(first.hits().asList().stream().map(hit -> hit.getRelevance().getScore()).toList(),
                     cached.hits().asList().stream().map(hit -> hit.getRelevance().getScore()).toList());
        assertEquals(first.hits().get(0).getField("matchfeatures"), cached.hits().get(0).getField("matchfeatures"));
        assertTrue(cached.hits().get(0).isCached());

        clock.addAndGet(1);
        Result fresh = search("/search/?article=a1&hits=5");
        assertEquals(2, backend.searches(), "a window older than 1000 ms is never served");
        assertTrue(trace(fresh).contains("ArticleViewCache: miss"), trace(fresh));
        search("/search/?article=a1&hits=5");
        assertEquals(2, backend.searches(), "the new window is cached in its place");
    }

    @Test
    void aChangedRankingInputModelVersionArticleOrWindowNeverHits() {
        String base = "/search/?article=a1&hits=5";
        search(base);
        List<String> changed = List.of(base + "&test.version=2",                                   // a new model
                                       base + "&ranking=freshness",
                                       base + "&input.query(w)=0.5",
                                       base + "&ranking.properties.vespa.now=1700000000",
                                       base + "&ranking.rerankCount=10",
                                       base + "&ranking.sorting=-votes",
                                       "/search/?article=a2&hits=5",
                                       base.replace("hits=5", "hits=25"),                           // a wider window
                                       base + "&exploration.candidates=30",                         // a wider window
                                       base + "&summary=full",
                                       base + "&query=referee");                                   // another query tree
        int searches = 1;
        for (String request : changed) {
            Result result = search(request);
            assertEquals(++searches, backend.searches(), request + " must not hit: " + trace(result));
        }
        for (String request : changed) search(request);
        assertEquals(searches, backend.searches(), "each is cached under its own key");
        search(base.replace("hits=5", "hits=6"));
        assertEquals(searches, backend.searches(), "6 shown of the same 20 candidates: the same window");
    }

    @Test
    void explorationChoosesAndLogsEachViewOnTopOfACachedWindow() throws Exception {
        String request = "/search/?article=a1&hits=5&exploration.rate=1&exploration.temperature=3&exploration.seed=";
        List<List<String>> orders = new ArrayList<>();
        for (int seed = 0; seed < 10; seed++) orders.add(ids(search(request + seed)));
        assertEquals(1, backend.searches(), "one query reached the content cluster");
        assertTrue(orders.stream().distinct().count() > 1, "each view explores its own order: " + orders);

        assertTrue(exploration.impressionLog().awaitWritten(10, 5000));
        List<String> lines = Files.readAllLines(exploration.impressionLog().path());
        assertEquals(10, lines.size(), "one impression per view");
        for (String line : lines) {
            JsonNode impression = new ObjectMapper().readTree(line);
            assertEquals(20, impression.get("candidates").size(), "the whole cached window is the candidate set");
            double product = 1;
            for (JsonNode shown : impression.get("shown")) product *= shown.get("step_propensity").asDouble();
            assertEquals(product, impression.get("propensity").asDouble(), 1e-12, "propensities of this view's own choice");
        }
        assertEquals(10, lines.stream().map(line -> line.substring(0, line.indexOf(','))).distinct().count(), "ten query ids");
    }

    @Test
    void cachedViewsShareTheirFeaturesAndLogThemAsAnUncachedView() throws Exception {
        Result first = search("/search/?article=a1&hits=5&query_id=v1");
        Result second = search("/search/?article=a1&hits=5&query_id=v2");
        search("/search/?article=a1&hits=5&query_id=v3&cache=false");
        assertEquals(2, backend.searches());
        for (int i = 0; i < 5; i++) {
            Object features = first.hits().get(i).getField("matchfeatures");
            assertTrue(features instanceof WindowFeatures, "a window hit's features: " + features);
            assertTrue(features == second.hits().get(i).getField("matchfeatures"), "shared by the window's views");
        }
        assertTrue(exploration.impressionLog().awaitWritten(3, 5000));
        List<JsonNode> impressions = new ArrayList<>();
        for (String line : Files.readAllLines(exploration.impressionLog().path())) impressions.add(new ObjectMapper().readTree(line));
        assertEquals(3, impressions.size());
        for (JsonNode impression : impressions.subList(0, 2))
            assertEquals(impressions.get(2).get("candidates"), impression.get("candidates"), "the cached views log what the content cluster gave");
    }

    @Test
    void cacheFalseBypassesAndSoDoesAMaxAgeOfZero() {
        search("/search/?article=a1&hits=5");
        Result bypassed = search("/search/?article=a1&hits=5&cache=false");
        assertEquals(2, backend.searches());
        assertTrue(trace(bypassed).contains("ArticleViewCache: bypass (cache=false)"), trace(bypassed));

        chain = chain(cacheSearcher(new ArticleViewCacheConfig.Builder().maxAgeMillis(0)), backend);
        search("/search/?article=a1&hits=5");
        search("/search/?article=a1&hits=5");
        assertEquals(4, backend.searches());
    }

    @Test
    void onlyWholeAnswersAreCached() {
        failing.failing.set(true);
        Result failed = search("/search/?article=a1&hits=5");
        assertNotNull(failed.hits().getError());
        failing.failing.set(false);
        Result next = search("/search/?article=a1&hits=5");
        assertNull(next.hits().getError(), "an error is not served from the cache");
        assertEquals(1, backend.searches());
        assertEquals(5, next.hits().size());
    }

    @Test
    void otherQueriesAreNotTouched() {
        search("/search/?yql=select%20*%20from%20comment%20where%20true&hits=5");
        search("/search/?yql=select%20*%20from%20comment%20where%20true&hits=5");
        assertEquals(2, backend.searches());
    }

    @Test
    void summaryClassesInTheWindowAreServedAndOthersFailLoudly() {
        Result missed = search("/search/?article=a1&hits=5");
        Result cached = search("/search/?article=a1&hits=5");
        for (Result view : List.of(missed, cached))
            for (Hit hit : view.hits().asList())
                assertNull(hit.getField("embedding"), "only the view's own summary class is shown, on a miss as on a hit");
        assertEquals(0, backend.fills("embedding"), "a miss fetches the view's own summary class only");
        assertEquals(0, backend.fills("ids"), "the window's candidates hold their ids: exploration fetches none");
        Result uncached = search("/search/?article=a1&hits=5&cache=false");
        assertEquals(5, uncached.hits().size());
        assertEquals(1, backend.fills("ids"), "an uncached view fetches the ids of the candidates it does not show");
        Execution execution = new Execution(new com.yahoo.component.chain.Chain<>(chain), Execution.Context.createContextStub());
        execution.fill(cached, "embedding"); // in alsoFill
        assertNull(cached.hits().getError());
        for (Hit hit : cached.hits().asList())
            assertEquals(com.yahoo.tensor.Tensor.from("tensor<float>(x[2]):[1, 0]"), hit.getField("embedding"), "fetched for the window");
        assertEquals(1, backend.fills("embedding"), "the first view asking fetches the class for the window");
        Result later = search("/search/?article=a1&hits=5");
        execution.fill(later, "embedding");
        assertNull(later.hits().getError());
        for (Hit hit : later.hits().asList())
            assertEquals(com.yahoo.tensor.Tensor.from("tensor<float>(x[2]):[1, 0]"), hit.getField("embedding"), "filled from the window");
        assertEquals(1, backend.fills("embedding"), "the views after it are filled from the window");
        execution.fill(cached, "full");
        assertNotNull(cached.hits().getError(), "a summary class the window does not hold");
        assertTrue(cached.hits().getError().getDetailedMessage().contains("'full'"), cached.hits().getError().toString());
    }

    @Test
    void aFailedFetchOfAnotherSummaryClassIsAnErrorOfThatViewAndIsNotKept() {
        search("/search/?article=a1&hits=5");
        Result cached = search("/search/?article=a1&hits=5");
        Execution execution = new Execution(new com.yahoo.component.chain.Chain<>(chain), Execution.Context.createContextStub());
        backend.failFills(true);
        execution.fill(cached, "embedding");
        assertNotNull(cached.hits().getError(), "the content cluster's error reaches the view");
        assertTrue(cached.hits().getError().getDetailedMessage().contains("timed out filling embedding"), cached.hits().getError().toString());
        backend.failFills(false);
        Result next = search("/search/?article=a1&hits=5");
        execution.fill(next, "embedding");
        assertNull(next.hits().getError(), "the failure was not kept in the window");
        assertEquals(com.yahoo.tensor.Tensor.from("tensor<float>(x[2]):[1, 0]"), next.hits().get(0).getField("embedding"));
        assertEquals(2, backend.fills("embedding"));
        assertEquals(1, backend.searches());
    }

    @Test
    void theDuplicateCollapseRunsPerViewOnTheCachedWindowsEmbeddings() {
        List<Searcher> collapsing = List.of(SearchChains.articleSearcher(), new ModelVersion(), exploration,
                                            new DuplicateCollapseSearcher(new DuplicateCollapseConfig.Builder().build()),
                                            cacheSearcher(new ArticleViewCacheConfig.Builder().maxAgeMillis(1000).alsoFill("embedding")),
                                            backend);
        for (int view = 0; view < 3; view++) {
            Result result = SearchChains.search(collapsing, "/search/?article=a1&hits=5&collapse.threshold=0.9");
            assertNull(result.hits().getError());
            assertEquals(1, result.hits().size(), "every stand-in comment has the same embedding: one is shown");
            assertEquals(29, result.hits().get(0).getField("duplicates"), "the other 29 of the stand-in's 30 comments");
            assertNull(result.hits().get(0).getField("embedding"));
        }
        assertEquals(1, backend.searches(), "the views after the first collapsed the cached window");
        assertEquals(1, backend.fills("embedding"), "the embeddings were fetched once, for the window");
    }

    @Test
    void viewsThatMissAtOnceWaitForOneQuery() throws Exception {
        Searcher slow = new Searcher() {
            @Override public Result search(Query query, Execution execution) {
                try { Thread.sleep(200); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
                return execution.search(query);
            }
        };
        List<Searcher> slowChain = List.of(SearchChains.articleSearcher(), new ModelVersion(), exploration,
                                           cacheSearcher(new ArticleViewCacheConfig.Builder().maxAgeMillis(1000)), slow, backend);
        ExecutorService views = Executors.newFixedThreadPool(8);
        try {
            List<Future<Result>> results = new ArrayList<>();
            for (int i = 0; i < 8; i++) results.add(views.submit(() -> SearchChains.search(slowChain, "/search/?article=a1&hits=5")));
            for (Future<Result> result : results) assertEquals(5, result.get(10, TimeUnit.SECONDS).hits().size());
        }
        finally {
            views.shutdownNow();
        }
        assertEquals(1, backend.searches(), "eight views, one query to the content cluster");
    }

}
