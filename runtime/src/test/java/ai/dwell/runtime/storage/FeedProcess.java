package ai.dwell.runtime.storage;

import com.yahoo.document.DocumentUpdate;

import java.nio.file.Path;
import java.util.concurrent.Semaphore;

/**
 * Feeds a store until killed, for {@link KillTest}: puts comment n for n = 0, 1, ..., and after every put
 * an increment of the votes of comment -1, with many operations in flight, and snapshots every
 * {@link #SNAPSHOT_EVERY_ENTRIES} entries. Prints one line per acknowledged operation: "put n end" or "increment end".
 */
public class FeedProcess {

    static final int COUNTER = -1;
    static final int SNAPSHOT_EVERY_ENTRIES = 5000;

    public static void main(String[] arguments) throws InterruptedException {
        TestDocuments documents = new TestDocuments();
        DocumentStore store = new DocumentStore(Path.of(arguments[0]), documents.types(),
                                                StoreOptions.defaults().withSnapshotEveryEntries(SNAPSHOT_EVERY_ENTRIES));
        Semaphore inFlight = new Semaphore(256);
        for (int n = 0; ; n++) {
            int put = n;
            inFlight.acquire();
            store.putAsync(documents.putComment(put)).thenRun(() -> {
                System.out.println("put " + put + " end");
                inFlight.release();
            });
            DocumentUpdate increment = documents.incrementVotes(TestDocuments.commentId(COUNTER), 1);
            increment.setCreateIfNonExistent(true);
            inFlight.acquire();
            store.updateAsync(increment).thenRun(() -> {
                System.out.println("increment end");
                inFlight.release();
            });
        }
    }

}
