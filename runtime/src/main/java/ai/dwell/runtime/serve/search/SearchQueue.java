package ai.dwell.runtime.serve.search;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries waiting for a search thread, and which one a free thread takes (adaptive LIFO with a
 * sojourn bound, as in CoDel and Facebook's adaptive LIFO).
 *
 * While the queue drains (its oldest query has waited less than half the bound) a thread takes the
 * oldest, first come first served, as Vespa's pool does. Once it backs up, a thread takes the newest:
 * in a surge the query just sent is the one whose client still waits, and it runs at once instead of
 * after everything ahead of it. The old ones are refused when they have waited longer than the bound
 * from a standing queue, one with at least as many queries behind them as threads running (and at
 * least one): that many a round of the threads does not clear. So no query is left to wait without
 * end, the queue is empty as soon as the surge ends, and a query that waited only because the
 * running ones were slow (a cold container, a collection pause), with the threads about to take all
 * that wait, is not refused. With the bound off (0) it is plain first come first served with no
 * refusals.
 *
 * Threads come to the queue by turns handed to the search pool: there are always at least as many
 * turns pending as queries waiting, so each query is taken or refused; and no more turns are handed
 * out while there are, so turns left over by refused queries do not fill the pool's queue.
 *
 * Safe for the container's threads: every operation takes the queue's lock for a few instructions.
 */
final class SearchQueue<T extends SearchQueue.Waiting> {

    /** Something queued, and when. */
    interface Waiting {
        long queuedNanos();
    }

    /** What a free thread takes: the query to run (or null when none waits) and those to refuse. */
    record Taken<T>(T run, List<T> refuse) {}

    private final QueueWaitBound bound;
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private int turns = 0;
    private int running = 0;

    SearchQueue(QueueWaitBound bound) {
        this.bound = bound;
    }

    /** Queues the query: true if the caller must hand the pool a turn for it. */
    synchronized boolean add(T query) {
        queue.addLast(query);
        if (turns >= queue.size()) return false;
        turns++;
        return true;
    }

    synchronized int size() { return queue.size(); }

    /**
     * A turn: takes the query a free thread runs now, and removes the ones to refuse: those that
     * waited longer than the bound while others wait behind them.
     */
    Taken<T> take(long nowNanos) {
        List<T> refuse = List.of();
        synchronized (this) {
            turns--;
            while (queue.size() > Math.max(1, running) && ! bound.admits(nowNanos - queue.peekFirst().queuedNanos())) {
                if (refuse.isEmpty()) refuse = new ArrayList<>();
                refuse.add(queue.pollFirst());
            }
            T oldest = queue.peekFirst();
            if (oldest == null) return new Taken<>(null, refuse);
            boolean backedUp = ! bound.isOff() && nowNanos - oldest.queuedNanos() > bound.maxWait().toNanos() / 2;
            running++;
            return new Taken<>(backedUp ? queue.pollLast() : queue.pollFirst(), refuse);
        }
    }

    /** A query taken has run: its thread is free. */
    synchronized void done() {
        running--;
    }

    /**
     * The pool refused a turn (its queue is full): removes the query to refuse, the oldest while the
     * bound is on, since the newest is the one a thread takes next, else the newest, as Vespa's pool
     * refuses the query it cannot queue. Null when none waits.
     */
    synchronized T evict() {
        turns--;
        return bound.isOff() ? queue.pollLast() : queue.pollFirst();
    }

}
