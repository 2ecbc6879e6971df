package ai.dwell.runtime.storage;

import com.yahoo.document.Document;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Logger;
import java.util.Map;

/**
 * Brings a new {@link ChangeListener} up to the documents a store holds (on start, after recovery, and when a
 * new application generation subscribes). The per-document work, {@link ChangeListener#prepare}, runs on every
 * core, as it runs on the writers' threads for writes; the documents are then handed to
 * {@link ChangeListener#onPut(Document, Object)} one at a time, on the calling thread, in the store's order, as
 * the commit thread hands over writes. Indexing a document (linguistics, embedding) is most of the cost of
 * catching up, so a store of a million comments is indexed as fast as the cores allow, not on one thread.
 */
final class CatchUp {

    private static final Logger log = Logger.getLogger(CatchUp.class.getName());
    private static final long PROGRESS_NANOS = 10_000_000_000L;

    /** A document and what the listener prepared for it (null: nothing, or preparing failed). */
    private record Prepared(Document document, Object prepared) {}

    private final ChangeListener listener;
    private final DocumentCodec codec;
    private final int threads;

    CatchUp(ChangeListener listener, DocumentCodec codec, int threads) {
        this.listener = listener;
        this.codec = codec;
        this.threads = threads;
    }

    /** What a document prepares to when the listener already holds it. */
    private static final Prepared CURRENT = new Prepared(null, null);

    /** Gives the listener every document it does not already hold, in order; returns how many it was given. */
    long run(Iterable<Map.Entry<String, StoredDocument>> documents, long expected) {
        ExecutorService preparers = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "dwell-store-catch-up");
            thread.setDaemon(true);
            return thread;
        });
        int window = 64 * threads; // documents prepared ahead of the one applied
        Deque<Future<Prepared>> pending = new ArrayDeque<>(window);
        long applied = 0;
        long current = 0;
        long start = System.nanoTime();
        long nextProgress = start + PROGRESS_NANOS;
        try {
            for (Map.Entry<String, StoredDocument> entry : documents) {
                String key = entry.getKey();
                StoredDocument stored = entry.getValue();
                pending.add(preparers.submit(() -> prepare(key, stored)));
                if (pending.size() >= window) {
                    if (apply(pending.poll())) applied++;
                    else current++;
                }
                if (System.nanoTime() > nextProgress) {
                    nextProgress += PROGRESS_NANOS;
                    log.info(String.format("Indexed %,d of %,d documents (%,d were current), %,.0f/s on %d threads",
                                           applied, expected, current, (applied + current) / ((System.nanoTime() - start) / 1e9), threads));
                }
            }
            while ( ! pending.isEmpty()) {
                if (apply(pending.poll())) applied++;
                else current++;
            }
            if (current > 0)
                log.info(String.format("Caught up: %,d documents indexed, %,d already held, in %d ms",
                                       applied, current, (System.nanoTime() - start) / 1_000_000));
            return applied;
        }
        finally {
            pending.forEach(future -> future.cancel(false));
            preparers.shutdownNow();
        }
    }

    private Prepared prepare(String key, StoredDocument stored) {
        if (listener.isCurrent(DocumentTable.idOf(key), stored.timestamp())) return CURRENT;
        Document document = stored.decode(codec);
        try {
            return new Prepared(document, listener.prepare(document));
        }
        catch (RuntimeException e) { // the listener deals with the document itself, as for a write it could not prepare
            return new Prepared(document, null);
        }
    }

    /** Gives the prepared document to the listener; false if it already held it. */
    private boolean apply(Future<Prepared> future) {
        Prepared prepared;
        try {
            prepared = future.get();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while catching up a listener", e);
        }
        catch (ExecutionException e) {
            throw new IllegalStateException("Could not decode a stored document", e.getCause());
        }
        if (prepared == CURRENT) return false;
        try {
            if (prepared.prepared() != null) listener.onPut(prepared.document(), prepared.prepared());
            else listener.onPut(prepared.document());
        }
        catch (RuntimeException e) { // the store keeps it; the listener does not hold it, as when its live write failed
            log.log(java.util.logging.Level.WARNING, "Could not apply stored document " + prepared.document().getId() + " to " + listener + ": " + e.getMessage(), e);
        }
        return true;
    }

}
