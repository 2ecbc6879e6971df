package ai.dwell.runtime.serve.search;

import java.time.Duration;

/**
 * How long a query may wait in the search handler's queue before a thread takes it: one that has
 * waited longer is refused (503), since its client would see that wait on top of the query's own
 * time. DWELL_SEARCH_MAX_WAIT_MS sets it (default 20 ms: about the p99 of a query at the sustainable
 * rate on a two-core machine, bench/results/overload.md); 0 turns the bound off.
 */
public record QueueWaitBound(Duration maxWait) {

    static final String VARIABLE = "DWELL_SEARCH_MAX_WAIT_MS";
    static final long DEFAULT_MILLIS = 20;

    public QueueWaitBound {
        if (maxWait.isNegative()) throw new IllegalArgumentException(VARIABLE + " must not be negative");
    }

    public static QueueWaitBound fromEnvironment() {
        String value = System.getenv(VARIABLE);
        long millis = value == null || value.isBlank() ? DEFAULT_MILLIS : Long.parseLong(value.strip());
        return new QueueWaitBound(Duration.ofMillis(millis));
    }

    public boolean isOff() { return maxWait.isZero(); }

    /** Whether a query that has waited this many nanoseconds may still run. */
    public boolean admits(long waitedNanos) {
        return isOff() || waitedNanos <= maxWait.toNanos();
    }

}
