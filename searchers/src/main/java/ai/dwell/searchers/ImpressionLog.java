package ai.dwell.searchers;

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
 * impression to a bounded queue, so it neither waits for the disk nor pays for the JSON, and when the
 * queue is full the impression is dropped and counted.
 */
class ImpressionLog implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ImpressionLog.class.getName());
    private static final Object STOP = new Object();

    private final Path path;
    private final BlockingQueue<Object> queue;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Thread writer;

    ImpressionLog(String configuredPath, int capacity) {
        this.path = resolve(configuredPath);
        this.queue = new ArrayBlockingQueue<>(capacity);
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

    /** Queues one impression, to be encoded and written. Returns false if it was dropped. */
    boolean append(Impression impression) {
        if (queue.offer(impression)) return true;
        dropped.incrementAndGet();
        return false;
    }

    long written() { return written.get(); }

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

    private void run() {
        try (BufferedWriter out = Files.newBufferedWriter(path, StandardCharsets.UTF_8,
                                                          StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            List<Object> batch = new ArrayList<>();
            while (true) {
                Object first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) continue;
                batch.add(first);
                queue.drainTo(batch);
                boolean stop = false;
                int count = 0;
                for (Object record : batch) {
                    if (record == STOP) { stop = true; break; }
                    String line;
                    try {
                        line = ImpressionJson.encode((Impression) record);
                    }
                    catch (RuntimeException e) {
                        dropped.incrementAndGet();
                        log.log(Level.WARNING, "Could not encode an impression; dropped", e);
                        continue;
                    }
                    out.write(line);
                    out.write('\n');
                    count++;
                }
                out.flush();
                written.addAndGet(count);
                batch.clear();
                if (stop) return;
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        catch (IOException e) {
            log.log(Level.WARNING, "Impression log " + path + " failed; impressions are no longer written", e);
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
