package ai.dwell.searchers;

import com.yahoo.jdisc.Metric;
import com.yahoo.vespa.defaults.Defaults;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Appends {@link Impression}s to a file, one JSON object a line ({@link ImpressionJson}), from a
 * background thread, which also encodes them (an impression is immutable): a query only offers its
 * impression to a bounded queue, so it neither waits for the disk nor pays for the JSON. An impression is dropped
 * when the queue is full, when it cannot be encoded, or when its batch cannot be written; written and dropped
 * impressions are counted in Vespa's metrics (dwell.impressions.written, dwell.impressions.dropped); drops are counted and
 * logged as warnings (at most one every 10 s), and a write failure does not stop the log: the file is opened again.
 */
class ImpressionLog implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ImpressionLog.class.getName());
    private static final Object STOP = new Object();
    private static final long WARNING_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Path path;
    private final BlockingQueue<Object> queue;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong droppedWhenWarned = new AtomicLong();
    private final AtomicLong lastWarning = new AtomicLong(); // System.nanoTime() of the last warning; 0: none yet
    private final int queueCapacity;
    private final Thread writer;

    /** The metrics an impression log reports: impressions written and dropped, as counters. */
    static final String WRITTEN_METRIC = "dwell.impressions.written", DROPPED_METRIC = "dwell.impressions.dropped";

    private final Metric metric;

    ImpressionLog(String configuredPath, int capacity) { this(configuredPath, capacity, null); }

    /** @param metric where the counts of written and dropped impressions go (Vespa's metrics), or null for nowhere */
    ImpressionLog(String configuredPath, int capacity, Metric metric) {
        this.metric = metric;
        this.path = resolve(configuredPath);
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.queueCapacity = capacity;
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create the directory of impression log " + path, e);
        }
        this.writer = new Thread(this::run, "impression-log-writer");
        writer.setDaemon(true);
        writer.start();
    }

    static Path resolve(String configuredPath) {
        Path path = Path.of(configuredPath);
        return path.isAbsolute() ? path : Path.of(Defaults.getDefaults().underVespaHome(configuredPath));
    }

    Path path() { return path; }

    /** Queues one impression, to be encoded and written. Returns false if it was dropped (counted, and logged at most every 10 s). */
    boolean append(Impression impression) {
        if (queue.offer(impression)) return true;
        dropped("the queue of " + queueCapacity + " is full", 1, null);
        return false;
    }

    long written() { return written.get(); }

    /** Impressions dropped since start: the queue was full, one could not be encoded, or the file could not be written. */
    long dropped() { return dropped.get(); }

    /** Waits until every record queued before this call is on disk, or the timeout passes. */
    boolean awaitWritten(long records, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (written.get() < records) {
            if (System.currentTimeMillis() > deadline) return false;
            Thread.sleep(2);
        }
        return true;
    }

    /**
     * Writes batches until stopped. A batch that cannot be written (the disk full, the file gone or unwritable) is
     * dropped, counted and logged, and the file is opened again for the next batch: the log never stops for good.
     */
    private void run() {
        BufferedWriter out = null;
        List<Object> batch = new ArrayList<>();
        try {
            while (true) {
                Object first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                batch.add(first);
                queue.drainTo(batch);
                boolean stop = batch.remove(STOP);
                List<String> lines = encode(batch);
                batch.clear();
                try {
                    if (out == null) out = Files.newBufferedWriter(path, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                    for (String line : lines) {
                        out.write(line);
                        out.write('\n');
                    }
                    out.flush();
                    written.addAndGet(lines.size());
                    if (metric != null) metric.add(WRITTEN_METRIC, lines.size(), null);
                }
                catch (IOException e) {
                    dropped("impression log " + path + " could not be written (" + e.getMessage() + "); it is opened again for the next", lines.size(), e);
                    closeQuietly(out);
                    out = null;
                }
                if (stop) return;
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        finally {
            closeQuietly(out);
        }
    }

    private List<String> encode(List<Object> records) {
        List<String> lines = new ArrayList<>(records.size());
        for (Object record : records) {
            try {
                lines.add(ImpressionJson.encode((Impression) record));
            }
            catch (RuntimeException e) {
                dropped("an impression could not be encoded", 1, e);
            }
        }
        return lines;
    }

    /** Counts dropped impressions, and logs a warning: the first, then at most one every 10 s, with the count since. */
    private void dropped(String why, int count, Exception cause) {
        long total = dropped.addAndGet(count);
        if (metric != null) metric.add(DROPPED_METRIC, count, null);
        long now = System.nanoTime(), last = lastWarning.get();
        if (last != 0 && now - last < WARNING_INTERVAL_NANOS) return;
        if ( ! lastWarning.compareAndSet(last, now == 0 ? 1 : now)) return;
        long since = total - droppedWhenWarned.getAndSet(total);
        log.log(Level.WARNING, "Dropped " + since + " impression" + (since == 1 ? "" : "s") + " (" + total + " since start): " + why, cause);
    }

    private static void closeQuietly(BufferedWriter out) {
        if (out == null) return;
        try {
            out.close();
        }
        catch (IOException ignored) { // what it held is counted as dropped already
        }
    }

    @Override
    public void close() {
        try {
            queue.put(STOP);
            writer.join(10_000);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
