package ai.dwell.searchers;

import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.result.Coverage;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.FeatureData;
import com.yahoo.search.result.Hit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The ranked window of one article view, as the content cluster returned it, shared by the views it serves. Its
 * hits hold the fields of the view's summary class. Another summary class that a searcher above fills (one of
 * {@code alsoFill}, e.g. the duplicate collapse's embeddings) is fetched from the content cluster the first time a
 * view of this window asks for it, for all the window's hits at once, and kept: the views after it are filled from
 * the window. Most views never ask, so a miss costs one summary fetch, not one per class. Each view gets its own
 * copies of the hits, which the searchers above may change (exploration reorders them and sets fields on them).
 */
final class ArticleWindow {

    private final List<Hit> hits;
    private final List<Hit> sources; // per hit, as the content cluster returned it before any fill: what a later fill copies
    private final Set<String> laterClasses;
    private final Map<String, CompletableFuture<Map<String, Map<String, Object>>>> fieldsOfClass = new ConcurrentHashMap<>(); // class → hit id → fields it adds
    private final long totalHitCount;
    private final Coverage coverage;
    private final long createdNanos;

    private ArticleWindow(List<Hit> hits, List<Hit> sources, Set<String> laterClasses,
                          long totalHitCount, Coverage coverage, long createdNanos) {
        this.hits = hits;
        this.sources = sources;
        this.laterClasses = laterClasses;
        this.totalHitCount = totalHitCount;
        this.coverage = coverage;
        this.createdNanos = createdNanos;
    }

    /**
     * The window of a result from the content cluster: call before any fill, then fill the view's summary class into
     * the result and {@link #build} it. laterClasses are the other summary classes views may ask this window for.
     */
    static final class Builder {

        private final Result result;
        private final List<Hit> sources = new ArrayList<>();
        private final Set<String> laterClasses;

        Builder(Result result, Set<String> laterClasses) {
            this.result = result;
            this.laterClasses = Set.copyOf(laterClasses);
            for (Hit hit : result.hits()) sources.add(unfilled(hit, result.getQuery()));
        }

        /** The window, once the result's hits are filled with the view's summary class. */
        ArticleWindow build(String viewClass, long createdNanos) {
            List<Hit> hits = new ArrayList<>();
            for (Hit hit : result.hits()) hits.add(copy(hit, viewClass));
            return new ArticleWindow(List.copyOf(hits), List.copyOf(sources), laterClasses,
                                     result.getTotalHitCount(), result.getCoverage(false), createdNanos);
        }

        private static Hit copy(Hit hit, String summaryClass) {
            Hit copy = new Hit(hit.getId().toString(), hit.getRelevance());
            copy.setSource(hit.getSource());
            hit.forEachField((name, value) -> copy.setField(name, shared(value)));
            copy.setMeta(hit.isMeta());
            copy.setAuxiliary(hit.isAuxiliary());
            copy.setFilled(summaryClass);
            return copy;
        }

        /**
         * A field value as the window's views share it: match features (as the content cluster sent them, not changed
         * since) become {@link WindowFeatures}, which the views' impressions encode once; other values as they are.
         */
        private static Object shared(Object value) {
            if (value == null || value.getClass() != FeatureData.class) return value;
            com.yahoo.data.access.Inspector encoded = ((FeatureData) value).inspect(); // null if made from a map of tensors
            return encoded != null ? new WindowFeatures(encoded) : value;
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

    /**
     * Fills the hits of a result made by {@link #toResult} with a summary class: from the window if a view of it has
     * filled that class before, else with contentCluster (which fills a result of copies of the window's hits as the
     * content cluster returned them), once for all views. Returns the error, if the window may not hold this class
     * or the content cluster failed to fill it.
     */
    Optional<ErrorMessage> fill(Result result, String summaryClass, BiConsumer<Result, String> contentCluster) {
        if (result.hits().asList().stream().allMatch(hit -> hit.isFilled(summaryClass))) return Optional.empty();
        if ( ! laterClasses.contains(summaryClass))
            return Optional.of(ErrorMessage.createIllegalQuery("The article view cache holds no summary class '" + summaryClass +
                                                               "': add it to alsoFill in article-view-cache, or pass cache=false"));
        Map<String, Map<String, Object>> byHit;
        ErrorMessage[] error = new ErrorMessage[1];
        while (true) {
            CompletableFuture<Map<String, Map<String, Object>>> mine = new CompletableFuture<>();
            CompletableFuture<Map<String, Map<String, Object>>> earlier = fieldsOfClass.putIfAbsent(summaryClass, mine);
            if (earlier != null) {
                byHit = earlier.join();
                if (byHit != null) break;
                continue; // that view's fill failed and was forgotten: try again
            }
            try {
                byHit = fetch(result.getQuery(), summaryClass, contentCluster, error);
            }
            catch (RuntimeException e) {
                forget(summaryClass, mine);
                throw e;
            }
            if (byHit == null) {
                forget(summaryClass, mine);
                return Optional.of(error[0]);
            }
            mine.complete(byHit);
            break;
        }
        for (Hit hit : result.hits()) {
            if (hit.isFilled(summaryClass)) continue;
            Map<String, Object> fields = byHit.get(hit.getId().toString());
            if (fields != null) fields.forEach(hit::setField);
            hit.setFilled(summaryClass);
        }
        return Optional.empty();
    }

    /** Forgets a failed fill, then wakes the views waiting for it (which try again). */
    private void forget(String summaryClass, CompletableFuture<Map<String, Map<String, Object>>> fill) {
        fieldsOfClass.remove(summaryClass, fill);
        fill.complete(null);
    }

    /** The fields this class adds to each hit, by hit id, fetched from the content cluster; null and the error if it failed. */
    private Map<String, Map<String, Object>> fetch(Query query, String summaryClass, BiConsumer<Result, String> contentCluster,
                                                   ErrorMessage[] error) {
        Result fetched = new Result(query);
        for (Hit source : sources) fetched.hits().add(unfilled(source, query));
        contentCluster.accept(fetched, summaryClass);
        if (fetched.hits().getError() != null) {
            error[0] = fetched.hits().getError();
            return null;
        }
        List<Hit> filled = fetched.hits().asList();
        Map<String, Map<String, Object>> byHit = new HashMap<>();
        for (int i = 0; i < hits.size(); i++) {
            Hit hit = filled.get(i); // a hit whose summary came back empty stays without the class's fields, as Vespa leaves it
            Hit shown = hits.get(i);
            Map<String, Object> fields = new LinkedHashMap<>();
            hit.forEachField((name, value) -> { if (shown.getField(name) == null) fields.put(name, value); });
            byHit.put(shown.getId().toString(), fields);
        }
        return byHit;
    }

    /**
     * A copy of a hit as the content cluster returned it, before any summary was filled into it, for the given query.
     * A clone, not a new hit: it keeps what the searchers between here and the content cluster recorded on the hit to
     * route its fill (federation's target chain), and an unfilled hit's clone shares none of its summary data.
     */
    private static Hit unfilled(Hit hit, Query query) {
        Hit copy = hit.clone();
        copy.setQuery(query);
        return copy;
    }

    long createdNanos() { return createdNanos; }

}
