package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.Coverage;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.searchchain.PhaseNames;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The hot-article cache: serves the ranked window of an article view ({@link ChainProperties#articleView}) from
 * memory when a view with the same {@link ArticleViewKey} (article, rank profile, model version, every ranking
 * input, hits and summary) was answered by the content cluster at most maxAgeMillis ago. It sits at the bottom of
 * dwell's searchers, so exploration, impression logging with propensities and the duplicate collapse run per view
 * on top of the cached window, as they do on a window fresh from the content nodes. A new model version is a new
 * key: a model swap never serves the old model's order. Only whole answers are cached (no error, full coverage,
 * no grouping). A request with cache=false bypasses it; the trace says hit (and the age of what was served), miss
 * or bypass. On a miss the window is filled with the request's summary class only; a class of {@code alsoFill} is
 * fetched for the whole window the first time a view of it asks (see {@link ArticleWindow}), and a searcher above
 * asking a cached window for any other summary class gets an error naming it.
 */
@Provides(ArticleViewCacheSearcher.PHASE)
@After(ChainPhases.DUPLICATE_COLLAPSE)
@Before(PhaseNames.BLENDED_RESULT)
public class ArticleViewCacheSearcher extends Searcher {

    public static final String PHASE = "ArticleViewCache";
    public static final CompoundName CACHE = CompoundName.from("cache");

    private final ArticleWindowCache cache;
    private final Set<String> alsoFill;
    private final boolean enabled;

    @Inject
    public ArticleViewCacheSearcher(ArticleViewCacheConfig config) {
        this(config, System::nanoTime);
    }

    ArticleViewCacheSearcher(ArticleViewCacheConfig config, LongSupplier nanoClock) {
        this.enabled = config.maxAgeMillis() > 0;
        this.cache = new ArticleWindowCache(TimeUnit.MILLISECONDS.toNanos(config.maxAgeMillis()), config.maxEntries(), nanoClock);
        this.alsoFill = Set.copyOf(config.alsoFill());
    }

    @Override
    public Result search(Query query, Execution execution) {
        Optional<ArticleView> view = ChainProperties.articleView(query);
        if (view.isEmpty()) return execution.search(query);
        String bypass = bypassReason(query);
        if (bypass != null) {
            if (query.getTrace().isTraceable(1))
                query.trace("ArticleViewCache: bypass (" + bypass + ")", 1);
            return execution.search(query);
        }
        Result[] own = new Result[1];
        ArticleWindowCache.Lookup lookup = cache.get(ArticleViewKey.of(query, view.get()), () -> {
            long created = cache.now();
            own[0] = execution.search(query);
            return window(own[0], query, execution, created);
        });
        if (lookup.window().isEmpty()) {
            query.trace("ArticleViewCache: miss, not cached (error or partial coverage)", 1);
            return own[0];
        }
        ArticleWindow window = lookup.window().get();
        // the view that computed the window gets it as every other view does: only its summary class filled
        if (query.getTrace().isTraceable(1))
            query.trace(own[0] != null ? "ArticleViewCache: miss"
                                       : "ArticleViewCache: hit, age " + TimeUnit.NANOSECONDS.toMillis(cache.ageNanos(window)) + " ms", 1);
        Result result = window.toResult(query);
        result.hits().setSearcherSpecificMetaData(this, window);
        return result;
    }

    @Override
    public void fill(Result result, String summaryClass, Execution execution) {
        if ( ! (result.hits().getSearcherSpecificMetaData(this) instanceof ArticleWindow window)) {
            execution.fill(result, summaryClass);
            return;
        }
        window.fill(result, summaryClass, execution::fill).ifPresent(result.hits()::addError);
    }

    /** Why this view is not served from the cache, or null if it may be. */
    private String bypassReason(Query query) {
        if ( ! enabled) return "maxAgeMillis is 0";
        if ( ! query.properties().getBoolean(CACHE, true)) return "cache=false";
        if ( ! query.getSelect().getGrouping().isEmpty()) return "grouping";
        return null;
    }

    /** The window of this result, filled with the view's summary class, or empty if it must not be cached. */
    private Optional<ArticleWindow> window(Result result, Query query, Execution execution, long createdNanos) {
        if (result.hits().getError() != null) return Optional.empty();
        Coverage coverage = result.getCoverage(false);
        if (coverage != null && ! coverage.getFull()) return Optional.empty();
        String summaryClass = query.getPresentation().getSummary();
        ArticleWindow.Builder window = new ArticleWindow.Builder(result, alsoFill);
        execution.fill(result, summaryClass);
        if (result.hits().getError() != null) return Optional.empty();
        for (Hit hit : result.hits())
            if ( ! hit.isFilled(summaryClass)) return Optional.empty();
        return Optional.of(window.build(summaryClass, createdNanos));
    }

    /** The windows cached now (for tests). */
    int cachedWindows() { return cache.size(); }

}
