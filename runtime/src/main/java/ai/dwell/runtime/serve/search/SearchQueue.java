package ai.dwell.runtime.serve.search;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries waiting for a search thread, which one runs next, and how many run at once (adaptive
 * LIFO with a sojourn bound, as in CoDel and Facebook's adaptive LIFO, plus a concurrency limit).
 *
 * While the queue drains (its oldest query has waited less than half the bound) the oldest runs
 * next, first come first served, as in Vespa's pool. Once it backs up, the newest runs next: in a
 * surge the query just sent is the one whose client still waits, and it runs at once instead of
 * after everything ahead of it. The old ones are refused when they have waited longer than the bound
 * from a standing queue: one longer than the next two rounds of threads take (a round: the thread
 * taking now, each running query's thread when it finishes, and each turn on its way, up to the
 * limit; closed-loop clients up to three times the limit wait about a round, and are no surge). So no
 * query is left to wait without end, the queue is empty as soon as the surge ends, and a query that
 * waited only because the threads were slow to come (a cold container, a collection pause) is not
 * refused. The bound stretches to twice the time queries take to run (a moving average): where a
 * query takes longer than the bound (a big corpus, a cold container), waiting a round or two behind
 * others is no sign of overload.
 *
 * At most {@code limit} queries run at once. Ranking is CPU work: past one query per core, more
 * running queries only share the cores, and each takes longer. A thread that finishes a query takes
 * the next before it leaves, so the queue never waits for a turn while queries run.
 *
 * Threads come by turns handed to the search pool, one per query while there are fewer pending
 * than queries waiting: so each query is run or refused, and turns left over by refused queries
 * do not fill the pool's queue.
 *
 * With the bound off (0) it is Vespa's pool: first come first served, no refusals, no limit.
 * Safe for the container's threads: every operation takes the queue's lock for a few instructions.
 */
final class SearchQueue<T extends SearchQueue.Waiting> {

    /** Something queued, and when. */
    interface Waiting {
        long queuedNanos();
    }

    /** What a thread takes: the query to run (or null: none, or enough run) and those to refuse. */
    record Taken<T>(T run, List<T> refuse) {}

    private final QueueWaitBound bound;
    private final int limit;
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private int turns = 0;
    private int running = 0;
    private long runNanos = 0; // moving average of the time queries take to run, over about 16 of them

    SearchQueue(QueueWaitBound bound, int limit) {
        if (limit < 1) throw new IllegalArgumentException("At least one query must run at once, not " + limit);
        this.bound = bound;
        this.limit = bound.isOff() ? Integer.MAX_VALUE : limit;
    }

    /** Queues the query: true if the caller must hand the pool a turn for it. */
    synchronized boolean add(T query) {
        queue.addLast(query);
        if (turns >= queue.size()) return false;
        turns++;
        return true;
    }

    /** A turn of a pool thread: what it runs and refuses. */
    synchronized Taken<T> take(long nowNanos) {
        turns--;
        return next(nowNanos);
    }

    /** A thread finished running a query, which took this long: what it runs and refuses next. */
    synchronized Taken<T> takeAfter(long nowNanos, long ranNanos) {
        running--;
        runNanos = runNanos == 0 ? ranNanos : runNanos + (ranNanos - runNanos) / 16;
        return next(nowNanos);
    }

    /** A thread failed running a query, and takes no other. */
    synchronized void failed() {
        running--;
    }

    /**
     * The pool refused a turn (its queue is full): removes the query to refuse, the oldest while the
     * bound is on, since the newest is the one that runs next, else the newest, as Vespa's pool
     * refuses the query it cannot queue. Null when none waits.
     */
    synchronized T evict() {
        turns--;
        return bound.isOff() ? queue.pollLast() : queue.pollFirst();
    }

    private Taken<T> next(long nowNanos) {
        List<T> refuse = List.of();
        int nextRound = (int) Math.min(limit, running + turns + 1L);
        long maxWait = bound.isOff() ? Long.MAX_VALUE : Math.max(bound.maxWait().toNanos(), 2 * runNanos);
        while (queue.size() > 2 * nextRound && nowNanos - queue.peekFirst().queuedNanos() > maxWait) {
            if (refuse.isEmpty()) refuse = new ArrayList<>();
            refuse.add(queue.pollFirst());
        }
        T oldest = queue.peekFirst();
        if (oldest == null || running >= limit) return new Taken<>(null, refuse);
        boolean backedUp = nowNanos - oldest.queuedNanos() > maxWait / 2;
        running++;
        return new Taken<>(backedUp ? queue.pollLast() : queue.pollFirst(), refuse);
    }

}
