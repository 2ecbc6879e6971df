package ai.dwell.runtime.serve.search;

import java.time.Duration;

/**
 * How long a query may wait in the search handler's queue before a thread takes it (at least; the
 * {@link SearchQueue} stretches it to twice a query's running time where that is longer): one that
 * has waited longer from a standing queue is refused (503), since its client would see that wait on
 * top of the query's own time; and past half of it the queue is backed up, and threads take the
 * newest first ({@link SearchQueue}). DWELL_SEARCH_MAX_WAIT_MS sets it, 0 turns it off (Vespa's own
 * behaviour: first come first served until the pool's queue is full). The default, 20 ms, is a few
 * times a query's p99 at the sustainable rate on a two-core machine and longer than the young
 * collections of the runtime's heap, so that a pause is not taken for overload; under a surge the
 * admitted queries are the newest, and wait about nothing whatever the bound
 * (bench/results/overload.md).
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

}
