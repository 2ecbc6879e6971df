package ai.dwell.runtime.serve.search;

import java.time.Duration;

/**
 * How long a query may wait in the search handler's queue before a thread takes it: one that has
 * waited longer while others wait behind it is refused (503), since its client would see that wait on
 * top of the query's own time. DWELL_SEARCH_MAX_WAIT_MS sets it; 5 ms is what the overload benchmark
 * runs with (about the median time of a query on a two-core machine at its sustainable rate,
 * bench/results/overload.md). It is off (0) by default for now: with 5 ms, queries of the redeploy
 * test and the learning loop (4 clients) got 503s around a container switch, cause not yet found.
 */
public record QueueWaitBound(Duration maxWait) {

    static final String VARIABLE = "DWELL_SEARCH_MAX_WAIT_MS";
    static final long DEFAULT_MILLIS = 0;

    public QueueWaitBound {
        if (maxWait.isNegative()) throw new IllegalArgumentException(VARIABLE + " must not be negative");
    }

    public static QueueWaitBound fromEnvironment() {
        String value = System.getenv(VARIABLE);
        long millis = value == null || value.isBlank() ? DEFAULT_MILLIS : Long.parseLong(value.strip());
        return new QueueWaitBound(Duration.ofMillis(millis));
    }

    public boolean isOff() { return maxWait.isZero(); }

    /**
     * Whether a query that has waited this many nanoseconds, with this many others still waiting
     * behind it, may run. It is refused only from a standing queue: a query that waited long only
     * because the machine stalled a thread, with nobody behind it, is no sign of overload (as CoDel
     * drops nothing from a queue shorter than one packet).
     */
    public boolean admits(long waitedNanos, int waitingBehind) {
        return isOff() || waitedNanos <= maxWait.toNanos() || waitingBehind == 0;
    }

}
