package ai.dwell.searchers;

import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.result.Coverage;
import com.yahoo.search.result.Hit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ranked window of one article view, as the content cluster returned it: immutable, shared by the views it
 * serves. Its hits hold the fields of the view's summary class; the fields other summary classes added are kept
 * aside, per class, and given to a view's hits only when a searcher above fills that class, as the content cluster
 * would. Each view gets its own copies of the hits, which the searchers above may change (exploration reorders them
 * and sets fields on them).
 */
final class ArticleWindow {

    private final List<Hit> hits;
    private final Map<String, Map<String, Map<String, Object>>> fieldsOfClass; // summary class → hit id → fields it adds
    private final long totalHitCount;
    private final Coverage coverage;
    private final long createdNanos;

    private ArticleWindow(List<Hit> hits, Map<String, Map<String, Map<String, Object>>> fieldsOfClass, long totalHitCount,
                          Coverage coverage, long createdNanos) {
        this.hits = hits;
        this.fieldsOfClass = fieldsOfClass;
        this.totalHitCount = totalHitCount;
        this.coverage = coverage;
        this.createdNanos = createdNanos;
    }

    /** Builds a window: call {@link #filled} after each summary class is filled into the result, the view's own first. */
    static final class Builder {

        private final Result result;
        private final Map<String, Map<String, Object>> seen = new HashMap<>(); // hit id → fields so far
        private final List<Hit> hits = new ArrayList<>();
        private final Map<String, Map<String, Map<String, Object>>> fieldsOfClass = new LinkedHashMap<>();

        Builder(Result result) { this.result = result; }

        /** Records what filling this summary class added to the result's hits. */
        Builder filled(String summaryClass) {
            boolean first = hits.isEmpty() && fieldsOfClass.isEmpty();
            Map<String, Map<String, Object>> added = new HashMap<>();
            for (Hit hit : result.hits()) {
                String id = hit.getId().toString();
                Map<String, Object> before = seen.computeIfAbsent(id, __ -> new LinkedHashMap<>());
                Map<String, Object> now = new LinkedHashMap<>();
                hit.forEachField(now::put);
                Map<String, Object> fields = new LinkedHashMap<>();
                now.forEach((name, value) -> { if ( ! before.containsKey(name)) fields.put(name, value); });
                before.putAll(now);
                added.put(id, fields);
                if (first) hits.add(copy(hit, fields, summaryClass));
            }
            if ( ! first) fieldsOfClass.put(summaryClass, added);
            return this;
        }

        ArticleWindow build(long createdNanos) {
            return new ArticleWindow(List.copyOf(hits), fieldsOfClass, result.getTotalHitCount(), result.getCoverage(false), createdNanos);
        }

        private static Hit copy(Hit hit, Map<String, Object> fields, String summaryClass) {
            Hit copy = new Hit(hit.getId().toString(), hit.getRelevance());
            copy.setSource(hit.getSource());
            fields.forEach(copy::setField);
            copy.setMeta(hit.isMeta());
            copy.setAuxiliary(hit.isAuxiliary());
            copy.setFilled(summaryClass);
            return copy;
        }

    }

    /** A result for this query holding copies of the window's hits, marked as cached. */
    Result toResult(Query query) {
        Result result = new Result(query);
        for (Hit hit : hits) {
            Hit copy = hit.clone();
            copy.setCached(true);
            result.hits().add(copy);
        }
        result.setTotalHitCount(totalHitCount);
        if (coverage != null) result.setCoverage(coverage);
        return result;
    }

    /** Fills the hits of a result made by {@link #toResult} with a summary class; false if this window does not hold it. */
    boolean fill(Result result, String summaryClass) {
        for (Hit hit : result.hits()) {
            if (hit.isFilled(summaryClass)) continue;
            Map<String, Map<String, Object>> byHit = fieldsOfClass.get(summaryClass);
            if (byHit == null) return false;
            Map<String, Object> fields = byHit.get(hit.getId().toString());
            if (fields != null) fields.forEach(hit::setField);
            hit.setFilled(summaryClass);
        }
        return true;
    }

    long createdNanos() { return createdNanos; }

}
