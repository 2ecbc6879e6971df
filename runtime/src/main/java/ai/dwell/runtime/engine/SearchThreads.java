package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.QueryProperties;
import ai.dwell.runtime.rank.RankProfile;

import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many threads rank one query on a content node, and the shared executor they run on: proton's
 * threads per search, chosen per query. A static policy always asks for the same number, as proton's
 * {@code num-threads-per-search}; the adaptive policy gives a query the cores that the queries in
 * flight leave it, {@code max(1, cores / in-flight searches)}, so that a lone query is split over
 * every core and a loaded node ranks each query on one thread.
 *
 * <p>Either way the rank profile's (or the query's) {@code vespa.matching.numthreadspersearch} caps
 * the number, and {@code vespa.matching.minhitsperthread} (else this runtime's default) keeps a
 * query from being split into partitions with fewer matches than that, as proton computes it.
 *
 * <p>A query may name its own policy with the rank property {@code dwell.threadspersearch} ("adaptive" or a
 * number; {@code ranking.properties.dwell.threadspersearch=2}), e.g. to compare policies in one benchmark run.
 *
 * <p>One instance is shared by all the content nodes of a runtime, so that in-flight searches on
 * every node count. Set with {@code DWELL_THREADS_PER_SEARCH}: a number, or {@code adaptive} (the
 * default); {@code DWELL_MIN_HITS_PER_THREAD} sets the default minimum matches per thread.
 */
public final class SearchThreads implements AutoCloseable {

    /** Matches per thread below which a query is not split further, unless the profile or query says otherwise. */
    public static final int DEFAULT_MIN_HITS_PER_THREAD = 2000;

    private static final String THREADS_PER_SEARCH = "vespa.matching.numthreadspersearch";
    private static final String MIN_HITS_PER_THREAD = "vespa.matching.minhitsperthread";
    /** A query's own policy, in place of the node's: "adaptive" or a number (ranking.properties.dwell.threadspersearch). */
    static final String QUERY_POLICY = "dwell.threadspersearch";

    private final int fixed; // 0: adaptive
    private final int cores;
    private final int minHitsPerThread;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ExecutorService executor;
    private final PartitionRunner runner;

    private SearchThreads(int fixed, int cores, int minHitsPerThread) {
        if (fixed < 0) throw new IllegalArgumentException("Threads per search must be positive or adaptive, not " + fixed);
        if (cores < 1) throw new IllegalArgumentException("Cores must be at least 1, not " + cores);
        this.fixed = fixed;
        this.cores = cores;
        this.minHitsPerThread = Math.max(0, minHitsPerThread);
        int threads = Math.max(fixed, cores);
        if (threads <= 1) this.executor = null;
        else {
            ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
                Thread thread = new Thread(runnable, "dwell-search-partition");
                thread.setDaemon(true);
                return thread;
            });
            pool.allowCoreThreadTimeOut(true); // no threads kept where queries do not split (e.g. a node on one thread per query)
            this.executor = pool;
        }
        this.runner = new PartitionRunner(executor);
    }

    /** Every query on this many threads (proton's static num-threads-per-search). */
    public static SearchThreads fixed(int threads, int minHitsPerThread) {
        if (threads < 1) throw new IllegalArgumentException("Threads per search must be at least 1, not " + threads);
        return new SearchThreads(threads, Runtime.getRuntime().availableProcessors(), minHitsPerThread);
    }

    /** Each query on the cores the searches in flight leave it. */
    public static SearchThreads adaptive(int cores, int minHitsPerThread) {
        return new SearchThreads(0, cores, minHitsPerThread);
    }

    /** One thread per query, the engine's behaviour without a policy. */
    public static SearchThreads single() { return fixed(1, DEFAULT_MIN_HITS_PER_THREAD); }

    /** From DWELL_THREADS_PER_SEARCH ("adaptive" or a number) and DWELL_MIN_HITS_PER_THREAD. */
    public static SearchThreads fromEnvironment() {
        return parse(System.getenv().getOrDefault("DWELL_THREADS_PER_SEARCH", "adaptive"),
                     System.getenv().getOrDefault("DWELL_MIN_HITS_PER_THREAD", String.valueOf(DEFAULT_MIN_HITS_PER_THREAD)));
    }

    static SearchThreads parse(String policy, String minHitsPerThread) {
        int minHits;
        try {
            minHits = Integer.parseInt(minHitsPerThread.trim());
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("DWELL_MIN_HITS_PER_THREAD must be a number, not '" + minHitsPerThread + "'");
        }
        String value = policy.trim().toLowerCase(Locale.ROOT);
        if (value.equals("adaptive")) return adaptive(Runtime.getRuntime().availableProcessors(), minHits);
        try {
            return fixed(Integer.parseInt(value), minHits);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("DWELL_THREADS_PER_SEARCH must be 'adaptive' or a number of threads, not '" + policy + "'");
        }
    }

    /** The policy, as the environment variable names it. */
    public String policy() { return fixed == 0 ? "adaptive" : String.valueOf(fixed); }

    /** Counts a search as in flight until the returned handle is closed. */
    InFlight enter() {
        inFlight.incrementAndGet();
        return inFlight::decrementAndGet;
    }

    /** A search in flight; close when it is answered. */
    interface InFlight extends AutoCloseable {
        @Override void close();
    }

    /** The threads for a query over this many matches with this profile, now. */
    int threadsFor(RankProfile profile, QueryProperties query, int matches) {
        int policy = query.string(QUERY_POLICY).map(SearchThreads::queryPolicy).orElse(fixed);
        int wanted = policy > 0 ? policy : Math.max(1, cores / Math.max(1, inFlight.get()));
        int cap = setting(THREADS_PER_SEARCH, profile, query).orElse(Integer.MAX_VALUE);
        int threads = Math.max(1, Math.min(wanted, cap));
        int minHits = setting(MIN_HITS_PER_THREAD, profile, query).orElse(minHitsPerThread);
        if (threads > 1 && minHits > 0) threads = (int) Math.min(threads, Math.max(1, (matches + (long) minHits - 1) / minHits));
        return Math.max(1, Math.min(threads, matches));
    }

    private static int queryPolicy(String value) {
        String policy = value.trim().toLowerCase(Locale.ROOT);
        if (policy.equals("adaptive")) return 0;
        try {
            int threads = Integer.parseInt(policy);
            if (threads >= 1) return threads;
        }
        catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(QUERY_POLICY + " must be 'adaptive' or a number of threads, not '" + value + "'");
    }

    private static java.util.OptionalInt setting(String name, RankProfile profile, QueryProperties query) {
        var value = query.string(name).or(() -> profile.property(name));
        if (value.isEmpty()) return java.util.OptionalInt.empty();
        try {
            return java.util.OptionalInt.of(Integer.parseInt(value.get().trim()));
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Rank profile '" + profile.name() + "': " + name + " must be a number, not '" + value.get() + "'");
        }
    }

    /** Runs the partitions of one query. */
    PartitionRunner runner() { return runner; }

    @Override
    public void close() {
        if (executor != null) executor.shutdown();
    }

}
