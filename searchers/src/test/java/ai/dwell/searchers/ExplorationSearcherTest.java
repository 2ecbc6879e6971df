package ai.dwell.searchers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.container.protect.Error;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.Hit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ExplorationSearcher in a chain behind ArticleSearcher, writing a real impression log. */
public class ExplorationSearcherTest {

    @TempDir Path dir;
    private ExplorationSearcher exploration;
    private CommentsBackend backend;
    private List<Searcher> chain;
    private int logged = 0;

    @BeforeEach
    void setUp() {
        exploration = new ExplorationSearcher(new ExplorationConfig.Builder()
                                                      .impressionLog(dir.resolve("impressions.jsonl").toString()).build());
        backend = new CommentsBackend(IntStream.range(0, 30).mapToObj(i -> 30.0 - i).toList());
        chain = List.of(SearchChains.articleSearcher(), exploration, backend);
    }

    @AfterEach
    void tearDown() { exploration.close(); }

    @Test
    void withoutExplorationTheBestAreShownInOrderAndLogged() throws Exception {
        Result result = search("/search/?article=a1&hits=5&exploration.candidates=12&query_id=q1");
        assertEquals(12, backend.lastRequestedHits(), "asks for the candidates");
        assertEquals(List.of("c0", "c1", "c2", "c3", "c4"), shownIds(result));
        assertEquals(1.0, (Double) result.hits().getField("propensity"), 1e-15);
        assertEquals(false, result.hits().getField("explored"));
        assertEquals("q1", result.hits().getField("query_id"));

        JsonNode impression = lastImpression();
        assertEquals("q1", impression.get("query_id").asText());
        assertEquals("a1", impression.get("article").asText());
        assertEquals("neural", impression.get("profile").asText());
        assertEquals(12, impression.get("candidates").size());
        assertEquals(5, impression.get("shown").size());
        assertEquals("id:dwell:comment::c0", impression.get("shown").get(0).get("id").asText());
        assertEquals(30.0, impression.get("candidates").get(0).get("score").asDouble());
        assertEquals(30.0, impression.get("candidates").get(0).get("features").get("baseline").asDouble());
        assertTrue(impression.get("candidates").get(3).get("features").has("nn_input"));
    }

    @Test
    void explorationIsReproducibleUnderASeedAndLogsPropensities() throws Exception {
        String request = "/search/?article=a1&hits=5&exploration.rate=1&exploration.temperature=3&exploration.seed=";
        Result first = search(request + "7");
        Result again = search(request + "7");
        assertEquals(shownIds(first), shownIds(again));
        List<List<String>> orders = new ArrayList<>();
        for (int seed = 0; seed < 10; seed++) orders.add(shownIds(search(request + seed)));
        assertTrue(orders.stream().distinct().count() > 1, "seeds explore different orders");

        JsonNode impression = lastImpression();
        assertTrue(impression.get("explored").asBoolean());
        double product = 1;
        for (JsonNode shown : impression.get("shown")) product *= shown.get("step_propensity").asDouble();
        assertEquals(product, impression.get("pl_propensity").asDouble(), 1e-12);
        assertEquals(product, impression.get("propensity").asDouble(), 1e-12, "rate 1");
        List<Hit> hits = first.hits().asList();
        for (int position = 0; position < hits.size(); position++)
            assertEquals(position, hits.get(position).getField("position"));
    }

    @Test
    void eachShownHitSaysWhereTheGreedyOrderHadIt() throws Exception {
        Result explored = search("/search/?article=a1&hits=5&exploration.rate=1&exploration.temperature=3&exploration.seed=11");
        JsonNode candidates = lastImpression().get("candidates");
        List<String> scoreOrder = new ArrayList<>();
        for (JsonNode candidate : candidates) scoreOrder.add(candidate.get("id").asText());
        boolean moved = false;
        for (Hit hit : explored.hits().asList()) {
            int greedy = (Integer) hit.getField("greedy_position");
            assertEquals(scoreOrder.indexOf(hit.getField("documentid").toString()), greedy);
            moved |= greedy != (Integer) hit.getField("position");
        }
        assertTrue(moved, "temperature 3 at rate 1 moves some hit");
        Result greedy = search("/search/?article=a1&hits=5");
        for (Hit hit : greedy.hits().asList())
            assertEquals(hit.getField("position"), hit.getField("greedy_position"), "rate 0 moves nothing");
    }

    @Test
    void badExplorationSettingsAreBadRequests() {
        for (String bad : List.of("exploration.rate=2", "exploration.temperature=0", "exploration.candidates=0")) {
            Result result = search("/search/?article=a1&" + bad);
            assertNotNull(result.hits().getError(), bad);
            assertEquals(Error.BAD_REQUEST.code, result.hits().getError().getCode(), bad);
        }
    }

    @Test
    void otherQueriesAndLaterPagesAreNotExplored() throws Exception {
        search("/search/?article=a1&hits=3");
        Result page2 = search("/search/?article=a1&hits=3&offset=3&exploration.rate=1");
        assertEquals(null, page2.hits().getField("query_id"));
        Result plain = search("/search/?yql=select%20*%20from%20comment%20where%20true&exploration.rate=1");
        assertEquals(null, plain.hits().getField("query_id"));
        exploration.impressionLog().awaitWritten(1, 5000);
        assertEquals(1, Files.readAllLines(exploration.impressionLog().path()).size(), "one impression: the first page");
    }

    @Test
    void everyArticleViewGetsItsOwnQueryId() {
        Object a = search("/search/?article=a1").hits().getField("query_id");
        Object b = search("/search/?article=a1").hits().getField("query_id");
        assertNotNull(a);
        assertNotEquals(a, b);
    }

    @Test
    void onlyTheShownHitsGetTheViewsSummary() throws Exception {
        Result result = search("/search/?article=a1&hits=4&exploration.candidates=10&exploration.rate=1&exploration.temperature=3&exploration.seed=5");
        List<String> shown = shownIds(result);
        assertEquals(4, shown.size());
        assertEquals(java.util.Set.copyOf(shown), backend.filledComments("short"), "the view's class: the shown hits alone");
        java.util.Set<String> others = new java.util.HashSet<>();
        for (int i = 0; i < 10; i++) if ( ! shown.contains("c" + i)) others.add("c" + i);
        assertEquals(others, backend.filledComments("ids"), "the id class: the candidates not shown");
        for (Hit hit : result.hits().asList()) assertEquals("the text of " + hit.getField("documentid").toString().substring("id:dwell:comment::".length()), hit.getField("text"));

        JsonNode candidates = lastImpression().get("candidates");
        assertEquals(10, candidates.size());
        for (int i = 0; i < 10; i++)
            assertEquals("id:dwell:comment::c" + i, candidates.get(i).get("id").asText(), "every candidate named, in score order");
    }

    @Test
    void aFailedIdFillIsAnErrorAndLogsNoImpression() throws Exception {
        search("/search/?article=a1&hits=3&query_id=first");
        backend.failFills("ids");
        Result failed = SearchChains.search(chain, "/search/?article=a1&hits=3&query_id=second");
        assertNotNull(failed.hits().getError());
        assertTrue(failed.hits().getError().getDetailedMessage().contains("ids"), failed.hits().getError().toString());
        assertEquals("first", lastImpression().get("query_id").asText());
        Thread.sleep(100);
        assertEquals(1, Files.readAllLines(exploration.impressionLog().path()).size(), "nothing logged for the failed view");
    }

    @Test
    void withoutAnIdSummaryEveryCandidateGetsTheViewsSummary() {
        exploration.close();
        exploration = new ExplorationSearcher(new ExplorationConfig.Builder().idSummary("")
                                                      .impressionLog(dir.resolve("impressions.jsonl").toString()).build());
        chain = List.of(SearchChains.articleSearcher(), exploration, backend);
        search("/search/?article=a1&hits=3&exploration.candidates=8");
        assertEquals(java.util.Set.of("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"), backend.filledComments("short"));
        assertEquals(0, backend.fills("ids"));
    }

    private Result search(String request) {
        Result result = SearchChains.search(chain, request);
        if (result.hits().getField("query_id") != null) logged++;
        return result;
    }

    private JsonNode lastImpression() throws IOException, InterruptedException {
        assertTrue(exploration.impressionLog().awaitWritten(logged, 5000), "impressions written");
        List<String> lines = Files.readAllLines(exploration.impressionLog().path());
        return new ObjectMapper().readTree(lines.get(lines.size() - 1));
    }

    private static List<String> shownIds(Result result) {
        return result.hits().asList().stream()
                .map(hit -> hit.getField("documentid").toString().substring("id:dwell:comment::".length()))
                .toList();
    }

}
