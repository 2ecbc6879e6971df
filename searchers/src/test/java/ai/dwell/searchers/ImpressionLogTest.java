package ai.dwell.searchers;

import com.yahoo.jdisc.Metric;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The impression log drops nothing silently: drops are counted and warned about, and a write failure does not stop it. */
public class ImpressionLogTest {

    private static final Slate SLATE = new Slate(new int[] {0}, new double[] {1.0}, 1.0, 1.0, false);

    private final List<LogRecord> warnings = new ArrayList<>();
    private final Logger logger = Logger.getLogger(ImpressionLog.class.getName());
    private final Handler handler = new Handler() {
        @Override public void publish(LogRecord record) { if (record.getLevel() == Level.WARNING) synchronized (warnings) { warnings.add(record); } }
        @Override public void flush() { }
        @Override public void close() { }
    };

    @BeforeEach
    void listen() { logger.addHandler(handler); }

    @AfterEach
    void stopListening() { logger.removeHandler(handler); }

    @Test
    void aFileThatCannotBeWrittenDropsItsBatchesAndIsOpenedAgain(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("impressions.jsonl");
        Files.createDirectories(file); // a directory where the file should be: opening it fails
        try (ImpressionLog log = new ImpressionLog(file.toString(), 100)) {
            assertTrue(log.append(impression("q1")));
            awaitDropped(log, 1);
            Files.delete(file); // the disk is writable again
            assertTrue(log.append(impression("q2")));
            assertTrue(log.awaitWritten(1, 5000), "written after the failure");
            assertEquals(1, log.dropped());
            List<String> lines = Files.readAllLines(file);
            assertEquals(1, lines.size());
            assertTrue(lines.get(0).contains("\"query_id\":\"q2\""), lines.get(0));
        }
        synchronized (warnings) {
            assertEquals(1, warnings.size(), "one warning");
            assertTrue(warnings.get(0).getMessage().contains("Dropped 1 impression (1 since start)"), warnings.get(0).getMessage());
            assertTrue(warnings.get(0).getMessage().contains("could not be written"), warnings.get(0).getMessage());
        }
    }

    @Test
    void aFullQueueDropsAndWarnsAtMostEveryTenSeconds(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("impressions.jsonl");
        Files.createDirectories(file); // the writer fails, so the queue of 2 fills
        try (ImpressionLog log = new ImpressionLog(file.toString(), 2)) {
            int refused = 0;
            for (int i = 0; i < 1000; i++) if ( ! log.append(impression("q" + i))) refused++;
            assertTrue(refused > 0, "some were refused");
            assertTrue(log.dropped() >= refused);
        }
        synchronized (warnings) {
            assertTrue(warnings.size() >= 1 && warnings.size() <= 2, "the first drop is warned about, the rest within 10 s are only counted: " + warnings.size());
            assertTrue(warnings.get(0).getMessage().matches("Dropped \\d+ impressions? \\(\\d+ since start\\): .*"), warnings.get(0).getMessage());
        }
    }

    @Test
    void writtenAndDroppedImpressionsAreCountedInVespasMetrics(@TempDir Path tmp) throws Exception {
        Map<String, Long> counted = new java.util.concurrent.ConcurrentHashMap<>();
        Metric metric = new Metric() {
            @Override public void set(String key, Number value, Context context) { throw new AssertionError("a counter, not a gauge"); }
            @Override public void add(String key, Number value, Context context) { counted.merge(key, value.longValue(), Long::sum); }
            @Override public Context createContext(Map<String, ?> properties) { return null; }
        };
        Path file = tmp.resolve("impressions.jsonl");
        try (ImpressionLog log = new ImpressionLog(file.toString(), 100, metric)) {
            for (int i = 0; i < 5; i++) assertTrue(log.append(impression("q" + i)));
        }
        assertEquals(5L, counted.get(ImpressionLog.WRITTEN_METRIC));
        assertEquals(null, counted.get(ImpressionLog.DROPPED_METRIC));

        Path directory = tmp.resolve("not-a-file");
        Files.createDirectories(directory); // the writer fails: each impression is dropped
        try (ImpressionLog log = new ImpressionLog(directory.toString(), 100, metric)) {
            assertTrue(log.append(impression("q-dropped")));
            awaitDropped(log, 1);
        }
        assertEquals(1L, counted.get(ImpressionLog.DROPPED_METRIC));
        assertEquals(5L, counted.get(ImpressionLog.WRITTEN_METRIC));
    }

    private static void awaitDropped(ImpressionLog log, long count) throws InterruptedException {
        for (int i = 0; i < 500 && log.dropped() < count; i++) Thread.sleep(10);
        assertEquals(count, log.dropped());
    }

    private static Impression impression(String queryId) {
        return new Impression(queryId, 1L, "a1", "neural", 1L, 0.0, 1.0, List.of(new Impression.Candidate("id:dwell:comment::c0", 1.0, null)), SLATE);
    }

}
