package ai.dwell.runtime.storage;

import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.IntegerFieldValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Many writers at once: every acknowledged operation is applied exactly once, and group commit keeps up. */
class ConcurrencyTest {

    private static final int WRITERS = 16;
    private static final int PUTS_PER_WRITER = 100;
    private static final int COUNTERS = 5;
    private static final int COUNTER_BASE = 1_000_000;

    @TempDir
    Path directory;

    private final TestDocuments documents = new TestDocuments();

    @Test
    void concurrentWritersLoseNothingAndCountersAreExact() throws InterruptedException {
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(new Thread(() -> {
                    for (int i = 0; i < PUTS_PER_WRITER; i++) {
                        int n = writer * PUTS_PER_WRITER + i;
                        assertEquals(Result.ok(false), store.put(documents.putComment(n)));
                        DocumentUpdate increment = documents.incrementVotes(commentId(COUNTER_BASE + n % COUNTERS), 1);
                        increment.setCreateIfNonExistent(true);
                        assertTrue(store.update(increment).succeeded());
                    }
                }));
            }
            writers.forEach(Thread::start);
            for (Thread writer : writers) writer.join();
            assertContents(store);
        }
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            assertContents(store);
        }
    }

    @Test
    void asynchronousPutsAreGroupCommitted() {
        int puts = 20_000;
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            putAll(store, 0, puts); // warm-up
            long start = System.nanoTime();
            putAll(store, puts, puts);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%d durable puts in %.2f s: %.0f puts/s%n", puts, seconds, puts / seconds);
            assertEquals(2 * puts, store.documentCount());
        }
    }

    private void putAll(DocumentStore store, int first, int count) {
        Semaphore inFlight = new Semaphore(1024);
        List<CompletableFuture<Result>> results = new ArrayList<>(count);
        for (int n = first; n < first + count; n++) {
            inFlight.acquireUninterruptibly();
            results.add(store.putAsync(documents.putComment(n)).whenComplete((result, error) -> inFlight.release()));
        }
        results.forEach(result -> assertEquals(Result.ok(false), result.join()));
    }

    private void assertContents(DocumentStore store) {
        assertEquals(WRITERS * PUTS_PER_WRITER + COUNTERS, store.documentCount());
        for (int n = 0; n < WRITERS * PUTS_PER_WRITER; n++)
            assertEquals(documents.comment(n), store.get(commentId(n)).orElseThrow());
        for (int c = 0; c < COUNTERS; c++)
            assertEquals(new IntegerFieldValue(WRITERS * PUTS_PER_WRITER / COUNTERS),
                         store.get(commentId(COUNTER_BASE + c)).orElseThrow().getFieldValue("votes"));
    }

}
