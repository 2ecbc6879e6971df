package ai.dwell.runtime.serve.search;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The queue's order and turns, with clock readings given by the test (nanoseconds, bound 10 ms). */
class SearchQueueTest {

    private record Query(String name, long queuedNanos) implements SearchQueue.Waiting {}

    private static final long MS = 1_000_000;
    private final SearchQueue<Query> queue = new SearchQueue<>(new QueueWaitBound(Duration.ofMillis(10)));

    @Test
    void aDrainingQueueIsFirstComeFirstServed() {
        Query a = new Query("a", 0), b = new Query("b", 1 * MS);
        assertTrue(queue.add(a));
        assertTrue(queue.add(b));
        assertEquals(new SearchQueue.Taken<>(a, List.of()), queue.take(4 * MS));
        assertEquals(new SearchQueue.Taken<>(b, List.of()), queue.take(5 * MS));
        assertNull(queue.take(6 * MS).run());
    }

    @Test
    void aBackedUpQueueServesTheNewestAndRefusesTheStale() {
        Query a = new Query("a", 0), b = new Query("b", 2 * MS), c = new Query("c", 9 * MS), d = new Query("d", 11 * MS);
        for (Query query : List.of(a, b, c, d)) assertTrue(queue.add(query));
        // at 13 ms: a and b waited over 10 ms with others behind; c waited 4 ms, d 2 ms; the head (c) is not
        // over half the bound, so first come first served
        assertEquals(new SearchQueue.Taken<>(c, List.of(a, b)), queue.take(13 * MS));
        // at 17 ms the head (d) waited 6 ms, over half the bound: backed up, the newest first
        Query e = new Query("e", 16 * MS);
        assertFalse(queue.add(e), "turns are left over from the refused queries: no new one is needed");
        assertEquals(new SearchQueue.Taken<>(e, List.of()), queue.take(17 * MS));
        assertEquals(new SearchQueue.Taken<>(d, List.of()), queue.take(40 * MS), "the last one waiting is not refused");
        assertNull(queue.take(41 * MS).run(), "a left-over turn finds nothing");
        assertTrue(queue.add(new Query("f", 42 * MS)), "all turns used: a new query needs one");
    }

    @Test
    void aQueueNoLongerThanTheThreadsRunningIsNotStanding() {
        for (int i = 0; i < 3; i++) {
            queue.add(new Query("running" + i, 0));
            queue.take(0);
        }
        Query a = new Query("a", 0), b = new Query("b", 1 * MS), c = new Query("c", 2 * MS);
        for (Query query : List.of(a, b, c)) queue.add(query);
        // all waited over the bound, but 2 behind the oldest, with 3 threads running: a round takes them all
        assertEquals(new SearchQueue.Taken<>(c, List.of()), queue.take(50 * MS));
        queue.done();
        queue.done();
        queue.done();
        queue.add(new Query("d", 3 * MS));
        // 1 running (c), 3 waiting: a and b have 2 and 1 behind them, at least the 1 running: refused
        assertEquals(new SearchQueue.Taken<>(new Query("d", 3 * MS), List.of(a, b)), queue.take(60 * MS));
    }

    @Test
    void aRefusedTurnEvictsTheOldestWhileTheBoundIsOnAndTheNewestWhenOff() {
        Query a = new Query("a", 0), b = new Query("b", 1 * MS);
        queue.add(a);
        queue.add(b);
        assertEquals(a, queue.evict());
        SearchQueue<Query> unbounded = new SearchQueue<>(new QueueWaitBound(Duration.ZERO));
        unbounded.add(a);
        unbounded.add(b);
        assertEquals(b, unbounded.evict());
        assertEquals(new SearchQueue.Taken<>(a, List.of()), unbounded.take(Long.MAX_VALUE / 2), "with the bound off nothing is stale");
    }

}
