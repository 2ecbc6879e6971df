package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.datatypes.IntegerFieldValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kills a feeding process with SIGKILL, and checks that every write it acknowledged is back, intact.
 * The feeder takes snapshots as it goes, so the kill may also hit a snapshot or a segment roll.
 */
class KillTest {

    private static final int ACKNOWLEDGED_PUTS_BEFORE_KILL = 20_000; // several snapshots in

    @TempDir
    Path temporary;

    @Test
    void everyAcknowledgedWriteSurvivesKillDashNine() throws Exception {
        Path directory = temporary.resolve("store");
        Process feeder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                            "-cp", System.getProperty("java.class.path"),
                                            FeedProcess.class.getName(), directory.toString())
                .redirectError(temporary.resolve("feeder.log").toFile())
                .start();
        List<Integer> acknowledgedPuts = new ArrayList<>();
        AtomicInteger acknowledgedIncrements = new AtomicInteger();
        CountDownLatch enoughAcknowledged = new CountDownLatch(ACKNOWLEDGED_PUTS_BEFORE_KILL);
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(feeder.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    if ( ! line.endsWith(" end")) continue; // cut short by the kill
                    String[] words = line.split(" ");
                    if (words[0].equals("put")) {
                        synchronized (acknowledgedPuts) { acknowledgedPuts.add(Integer.parseInt(words[1])); }
                        enoughAcknowledged.countDown();
                    }
                    else {
                        acknowledgedIncrements.incrementAndGet();
                    }
                }
            }
            catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        reader.start();

        assertTrue(enoughAcknowledged.await(20, TimeUnit.SECONDS), "the feeder acknowledges writes");
        feeder.destroyForcibly();
        assertTrue(feeder.waitFor(10, TimeUnit.SECONDS));
        reader.join();

        TestDocuments documents = new TestDocuments();
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            for (int n : acknowledgedPuts)
                assertEquals(documents.comment(n), store.get(commentId(n)).orElse(null), "comment " + n);
            int votes = ((IntegerFieldValue) store.get(commentId(FeedProcess.COUNTER)).orElseThrow().getFieldValue("votes")).getInteger();
            assertTrue(votes >= acknowledgedIncrements.get(), votes + " votes, " + acknowledgedIncrements + " increments acknowledged");
            store.forEach((Document document) -> {
                int n = Integer.parseInt(document.getId().getScheme().getNamespaceSpecific());
                if (n != FeedProcess.COUNTER) assertEquals(documents.comment(n), document, "unacknowledged but present, so intact");
            });
            System.out.printf("Killed after %d acknowledged puts and %d increments; recovered %d documents, %d votes%n",
                              acknowledgedPuts.size(), acknowledgedIncrements.get(), store.documentCount(), votes);
        }
    }

}
