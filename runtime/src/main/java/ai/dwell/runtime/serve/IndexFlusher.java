package ai.dwell.runtime.serve;

import ai.dwell.runtime.engine.ContentNode;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Flushes the content nodes' index state in the background: one thread, every {@code DWELL_INDEX_FLUSH_SECONDS}
 * (default {@value #DEFAULT_SECONDS}), each node writing the document types that changed since their last flush
 * ({@link ContentNode#flush}). {@code DWELL_INDEX_FLUSH=off} turns the background flushes off (to measure their
 * cost); a clean stop flushes regardless ({@link #flushNow}).
 */
final class IndexFlusher implements AutoCloseable {

    private static final Logger log = Logger.getLogger(IndexFlusher.class.getName());
    static final long DEFAULT_SECONDS = 60;

    private final List<ContentNode> nodes;
    private final ScheduledExecutorService executor;

    IndexFlusher(List<ContentNode> nodes, boolean enabled, long intervalSeconds) {
        this.nodes = List.copyOf(nodes);
        if ( ! enabled) {
            log.info("Background index flushes are off (DWELL_INDEX_FLUSH=off): the index state is written on a clean stop only");
            this.executor = null;
            return;
        }
        this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "dwell-index-flush");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::flushQuietly, intervalSeconds, intervalSeconds, TimeUnit.SECONDS);
    }

    /** A flusher as the environment says: DWELL_INDEX_FLUSH (on|off) and DWELL_INDEX_FLUSH_SECONDS. */
    static IndexFlusher fromEnvironment(List<ContentNode> nodes) {
        boolean enabled = ! "off".equalsIgnoreCase(System.getenv().getOrDefault("DWELL_INDEX_FLUSH", "on").trim());
        long seconds = DEFAULT_SECONDS;
        String configured = System.getenv("DWELL_INDEX_FLUSH_SECONDS");
        if (configured != null && ! configured.isBlank()) {
            try { seconds = Math.max(1, Long.parseLong(configured.trim())); }
            catch (NumberFormatException e) { log.warning("DWELL_INDEX_FLUSH_SECONDS '" + configured + "' is not a number: using " + seconds); }
        }
        return new IndexFlusher(nodes, enabled, seconds);
    }

    /** Flushes every node now, on the calling thread. */
    void flushNow() throws IOException {
        long start = System.nanoTime();
        long bytes = 0;
        for (ContentNode node : nodes) bytes += node.flush();
        if (bytes > 0) log.info("Flushed index state: " + bytes + " bytes in " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    private void flushQuietly() {
        try { flushNow(); }
        catch (IOException | RuntimeException e) { log.log(Level.WARNING, "Could not flush the index state; the previous state stays in place", e); }
    }

    /** Stops the background flushes (waiting for one in progress), then flushes once more. */
    @Override
    public void close() {
        if (executor != null) {
            executor.shutdown();
            try { executor.awaitTermination(5, TimeUnit.MINUTES); }
            catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        }
        flushQuietly();
    }

}
