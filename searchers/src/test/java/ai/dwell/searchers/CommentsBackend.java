package ai.dwell.searchers;

import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.FeatureData;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.tensor.Tensor;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stands where the content cluster is at the end of a search chain in these tests: returns the
 * given comments as ranked hits with match-features, fills summaries, and keeps the last query
 * it received so tests can see what would be sent to the content nodes.
 */
class CommentsBackend extends Searcher {

    private final List<Double> scores;
    private final AtomicReference<Query> lastQuery = new AtomicReference<>();
    private volatile int lastRequestedHits;
    private final AtomicInteger searches = new AtomicInteger();
    private final Map<String, AtomicInteger> fills = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, java.util.Set<String>> filledComments = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Set<String> failingClasses = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean failFills;

    /** Comments c0, c1, ... with these scores, in this order (which should be descending). */
    CommentsBackend(List<Double> scores) {
        this.scores = List.copyOf(scores);
    }

    @Override
    public Result search(Query query, Execution execution) {
        lastQuery.set(query);
        lastRequestedHits = query.getHits();
        searches.incrementAndGet();
        Result result = new Result(query);
        result.setTotalHitCount(scores.size());
        for (int i = 0; i < Math.min(scores.size(), query.getHits()); i++) {
            Hit hit = new Hit("index:dwell/0/c" + i, scores.get(i));
            hit.setField("matchfeatures", matchFeatures(scores.get(i), i));
            hit.setFillable();
            result.hits().add(hit);
        }
        return result;
    }

    /** Match features as a content node sends them: doubles, and tensors in Vespa's binary format. */
    private static FeatureData matchFeatures(double baseline, int i) {
        com.yahoo.slime.Slime slime = new com.yahoo.slime.Slime();
        com.yahoo.slime.Cursor features = slime.setObject();
        features.setDouble("baseline", baseline);
        features.setData("nn_input", com.yahoo.tensor.serialization.TypedBinaryFormat.encode(Tensor.from("tensor<float>(x[2]):[" + i + ", 1]")));
        return new FeatureData(new com.yahoo.data.access.slime.SlimeAdapter(slime.get()));
    }

    @Override
    public void fill(Result result, String summaryClass, Execution execution) {
        fills.computeIfAbsent(String.valueOf(summaryClass), __ -> new AtomicInteger()).incrementAndGet();
        if (failFills || failingClasses.contains(summaryClass)) {
            result.hits().addError(com.yahoo.search.result.ErrorMessage.createTimeout("a content node timed out filling " + summaryClass));
            return;
        }
        for (Hit hit : result.hits().asList()) {
            String comment = hit.getId().toString().substring("index:dwell/0/".length());
            filledComments.computeIfAbsent(String.valueOf(summaryClass), __ -> java.util.concurrent.ConcurrentHashMap.newKeySet()).add(comment);
            hit.setField("documentid", "id:dwell:comment::" + comment);
            if ("short".equals(summaryClass)) hit.setField("text", "the text of " + comment);
            if ("embedding".equals(summaryClass)) hit.setField("embedding", Tensor.from("tensor<float>(x[2]):[1, 0]"));
            hit.setFilled(summaryClass);
        }
    }

    Query lastQuery() { return lastQuery.get(); }

    /** The number of queries that reached the content cluster. */
    int searches() { return searches.get(); }

    /** The number of fill requests of this summary class that reached the content cluster. */
    int fills(String summaryClass) { return fills.getOrDefault(String.valueOf(summaryClass), new AtomicInteger()).get(); }

    /** The comments (c0, c1, ...) that fills of this summary class were asked for, over all fills. */
    java.util.Set<String> filledComments(String summaryClass) {
        return java.util.Set.copyOf(filledComments.getOrDefault(String.valueOf(summaryClass), java.util.Set.of()));
    }

    /** Makes the fills of this summary class fail. */
    void failFills(String summaryClass) { failingClasses.add(summaryClass); }

    /** Makes every fill fail (as a content node that times out would) while set. */
    void failFills(boolean fail) { failFills = fail; }

    /** The number of hits the last query asked for, when it got here. */
    int lastRequestedHits() { return lastRequestedHits; }

}
