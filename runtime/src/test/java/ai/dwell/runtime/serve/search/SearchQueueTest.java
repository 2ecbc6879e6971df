package ai.dwell.runtime.serve.search;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The queue's order, refusals, turns and limit, with clock readings given by the test (bound 10 ms). */
class SearchQueueTest {

    private record Query(String name, long queuedNanos) implements SearchQueue.Waiting {}

    private static final long MS = 1_000_000;
    private static final QueueWaitBound BOUND = new QueueWaitBound(Duration.ofMillis(10));

    @Test
    void aDrainingQueueIsFirstComeFirstServed() {
        SearchQueue<Query> queue = new SearchQueue<>(BOUND, 4);
        Query a = new Query("a", 0), b = new Query("b", 1 * MS);
        assertTrue(queue.add(a));
        assertTrue(queue.add(b));
        assertEquals(new SearchQueue.Taken<>(a, List.of()), queue.take(4 * MS));
        assertEquals(new SearchQueue.Taken<>(b, List.of()), queue.takeAfter(5 * MS, MS), "a thread that finished takes the next");
        assertNull(queue.takeAfter(6 * MS, MS).run());
        assertNull(queue.take(6 * MS).run(), "a left-over turn finds nothing");
    }

    @Test
    void aBackedUpQueueRunsTheNewestAndRefusesTheStale() {
        SearchQueue<Query> queue = new SearchQueue<>(BOUND, 1);
        Query a = new Query("a", 0), b = new Query("b", 2 * MS), c = new Query("c", 9 * MS), d = new Query("d", 11 * MS);
        assertTrue(queue.add(a));
        assertEquals(a, queue.take(0).run());
        for (Query query : List.of(b, c, d)) assertTrue(queue.add(query));
        for (int turn = 0; turn < 3; turn++)
            assertEquals(new SearchQueue.Taken<>(null, List.of()), queue.take(11 * MS + turn), "one runs: the turns leave");
        // a finishes at 13 ms: b waited over 10 ms, with more waiting than the next two rounds (of one) take:
        // refused. The head (c) waited 4 ms, not over half the bound: first come first served
        assertEquals(new SearchQueue.Taken<>(c, List.of(b)), queue.takeAfter(13 * MS, MS));
        Query e = new Query("e", 16 * MS);
        assertTrue(queue.add(e));
        assertEquals(new SearchQueue.Taken<>(null, List.of()), queue.take(16 * MS));
        // c finishes at 17 ms: the head (d) waited 6 ms, over half the bound: backed up, the newest first
        assertEquals(new SearchQueue.Taken<>(e, List.of()), queue.takeAfter(17 * MS, MS));
        assertEquals(new SearchQueue.Taken<>(d, List.of()), queue.takeAfter(40 * MS, MS), "the last one waiting is not refused");
        assertNull(queue.takeAfter(41 * MS, MS).run());
        assertTrue(queue.add(new Query("f", 42 * MS)), "all turns used: a new query needs one");
    }

    @Test
    void whatTheNextTwoRoundsOfThreadsTakeIsNotStanding() {
        List<Query> five = List.of(new Query("a", 0), new Query("b", 0), new Query("c", 0), new Query("d", 0), new Query("e", 0));
        SearchQueue<Query> two = new SearchQueue<>(BOUND, 2);
        for (Query query : five) two.add(query);
        // all waited 50 ms; with at most two running, two rounds take four of the five: the oldest is refused
        assertEquals(new SearchQueue.Taken<>(five.get(4), List.of(five.get(0))), two.take(50 * MS));
        SearchQueue<Query> three = new SearchQueue<>(BOUND, 3);
        for (Query query : five) three.add(query);
        // with three, two rounds take all five
        assertEquals(new SearchQueue.Taken<>(five.get(4), List.of()), three.take(50 * MS));
    }

    @Test
    void theBoundStretchesToTwiceTheTimeQueriesTakeToRun() {
        SearchQueue<Query> queue = new SearchQueue<>(BOUND, 1);
        queue.add(new Query("slow", 0));
        queue.take(0);
        Query a = new Query("a", 1 * MS), b = new Query("b", 2 * MS), c = new Query("c", 3 * MS), d = new Query("d", 4 * MS);
        for (Query query : List.of(a, b, c, d)) queue.add(query);
        for (int turn = 0; turn < 4; turn++) queue.take(5 * MS);
        // the slow one ran 40 ms: a waited 40 ms, over the bound of 10 but not over twice 40: not stale, and
        // not over half of 80: first come first served
        assertEquals(new SearchQueue.Taken<>(a, List.of()), queue.takeAfter(41 * MS, 40 * MS));
        // a ran 40 ms too: b waited 79 ms, under 80: none refused, and backed up: the newest first
        assertEquals(new SearchQueue.Taken<>(d, List.of()), queue.takeAfter(81 * MS, 40 * MS));
        Query e = new Query("e", 82 * MS);
        queue.add(e);
        // at 130 ms b waited 128 ms, over twice 40, with c and e behind it, more than two rounds of one: refused
        assertEquals(new SearchQueue.Taken<>(e, List.of(b)), queue.takeAfter(130 * MS, 40 * MS));
    }

    @Test
    void noMoreThanTheLimitRunAtOnceAndAFinishedOneTakesTheNext() {
        SearchQueue<Query> queue = new SearchQueue<>(BOUND, 2);
        Query a = new Query("a", 0), b = new Query("b", 0), c = new Query("c", 0);
        for (Query query : List.of(a, b, c)) assertTrue(queue.add(query));
        assertEquals(a, queue.take(1 * MS).run());
        assertEquals(b, queue.take(1 * MS).run());
        assertNull(queue.take(1 * MS).run(), "two run: the third waits, its turn leaves");
        assertEquals(c, queue.takeAfter(2 * MS, MS).run(), "the thread that finished takes it");
        assertNull(queue.takeAfter(3 * MS, MS).run());
    }

    @Test
    void withTheBoundOffItIsVespasPool() {
        SearchQueue<Query> queue = new SearchQueue<>(new QueueWaitBound(Duration.ZERO), 1);
        Query a = new Query("a", 0), b = new Query("b", 1 * MS), c = new Query("c", 2 * MS);
        for (Query query : List.of(a, b, c)) queue.add(query);
        assertEquals(c, queue.evict(), "a refused turn refuses the newest");
        assertEquals(new SearchQueue.Taken<>(a, List.of()), queue.take(Long.MAX_VALUE / 2), "nothing is stale");
        assertEquals(b, queue.take(Long.MAX_VALUE / 2).run(), "no limit on how many run");
    }

    @Test
    void withTheBoundOnARefusedTurnRefusesTheOldest() {
        SearchQueue<Query> queue = new SearchQueue<>(BOUND, 1);
        Query a = new Query("a", 0), b = new Query("b", 1 * MS);
        queue.add(a);
        queue.add(b);
        assertEquals(a, queue.evict());
    }

}
