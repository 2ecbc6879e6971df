package ai.dwell.runtime.serve.search;

/**
 * How many queries the container runs at once while the {@link QueueWaitBound} is on:
 * DWELL_SEARCH_RUNNING per core (default 1), at least one. A query's ranking is CPU work on the
 * content nodes' threads, which take a query's partitions in parallel when few run (the adaptive
 * threads per search); past one query per core more running queries only share the cores, so in a
 * surge each would take as many times longer. The search pool's threads
 * (DWELL_SEARCH_THREADS per core) stay what Vespa's pool is: how many may be handled at once.
 */
public record RunningQueries(int limit) {

    static final String VARIABLE = "DWELL_SEARCH_RUNNING";

    public RunningQueries {
        if (limit < 1) throw new IllegalArgumentException(VARIABLE + " must allow at least one query to run");
    }

    public static RunningQueries fromEnvironment() {
        String value = System.getenv(VARIABLE);
        double perCore = value == null || value.isBlank() ? 1.0 : Double.parseDouble(value.strip());
        if ( ! (perCore > 0)) throw new IllegalArgumentException(VARIABLE + " must be positive, not " + value);
        return new RunningQueries(Math.max(1, (int) Math.round(perCore * Runtime.getRuntime().availableProcessors())));
    }

}
