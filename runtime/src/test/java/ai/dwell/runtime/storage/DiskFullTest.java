package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.ForwardingFileChannel;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentRemove;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A disk that fills up and frees again: the writes it had no room for fail with StorageFullException and change
 * nothing, later writes succeed, and every acknowledged write, and none of the failed ones, is there after the store
 * is opened again, also when a full disk cut a write in the middle of a batch and when the log rolled to a new
 * segment meanwhile. A failure that is not the disk being full (here: an fsync) still fails the log for good.
 */
class DiskFullTest {

    @TempDir
    Path directory;

    private final TestDocuments documents = new TestDocuments();
    private final FullingDisk disk = new FullingDisk();
    private final Random random = new Random(7);
    private DocumentStore store;

    @BeforeEach
    void open() {
        store = new DocumentStore(directory, documents.types(), StoreOptions.defaults(), disk); // snapshots when the test takes them
    }

    private final List<DocumentStore> images = new ArrayList<>();

    @AfterEach
    void close() {
        store.close();
        images.forEach(DocumentStore::close);
    }

    @Test
    void writesTheDiskHasNoRoomForFailAndLaterWritesSucceed() throws IOException {
        Map<DocumentId, Integer> expected = new HashMap<>(); // id → the n of the comment acknowledged last; absent: removed
        int failed = 0, snapshots = 0;
        for (int round = 0; round < 12; round++) {
            disk.full(round % 3 == 1, random.nextInt(300)); // full for a round in three: some bytes of the next write still fit
            List<CompletableFuture<Result>> writes = new ArrayList<>();
            List<Runnable> onSuccess = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int n = random.nextInt(60);
                DocumentId id = commentId(n);
                if (random.nextInt(4) == 0) {
                    writes.add(store.removeAsync(new DocumentRemove(id)));
                    onSuccess.add(() -> expected.remove(id));
                }
                else {
                    writes.add(store.putAsync(documents.putComment(n)));
                    onSuccess.add(() -> expected.put(id, n));
                }
            }
            for (int i = 0; i < writes.size(); i++) {
                try {
                    writes.get(i).join();
                    onSuccess.get(i).run();
                }
                catch (CompletionException e) {
                    assertTrue(disk.isFull(), "only a full disk fails writes: " + e);
                    assertInstanceOf(StorageFullException.class, e.getCause());
                    failed++;
                }
            }
            assertStored(expected, store, "round " + round);
            if (round % 4 == 1) { // a snapshot rolls the log to a new segment: not while the disk is full, when the log goes on in its segment
                try {
                    store.snapshot();
                    snapshots++;
                }
                catch (RuntimeException e) {
                    assertTrue(disk.isFull(), "only a full disk fails a snapshot: " + e);
                }
            }
        }
        assertTrue(failed > 0, "some writes failed");
        assertTrue(snapshots > 0, "some snapshots were taken");
        assertStored(expected, reopened(copy(directory)), "an image of the disk as it is now (the log replayed after the last snapshot)");
        store.close();
        store = new DocumentStore(directory, documents.types(), StoreOptions.defaults(), disk);
        assertStored(expected, store, "after a clean close");
        store.put(documents.putComment(1000));
        store.close();
        store = new DocumentStore(directory, documents.types());
        assertEquals(expected.size() + 1, store.documentCount());
    }

    private DocumentStore reopened(Path image) {
        DocumentStore reopened = new DocumentStore(image, documents.types(), StoreOptions.defaults());
        images.add(reopened);
        return reopened;
    }

    private Path copy(Path from) throws IOException {
        Path to = Files.createTempDirectory(from.getParent(), "image");
        try (var files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(target);
                else Files.copy(file, target);
            }
        }
        return to;
    }

    @Test
    void aFailedForceStillFailsTheLogForGood() {
        store.put(documents.putComment(1));
        disk.failForce = true;
        CompletionException e = assertThrows(CompletionException.class, () -> store.putAsync(documents.putComment(2)).join());
        assertTrue( ! (e.getCause() instanceof StorageFullException), e.toString());
        disk.failForce = false;
        assertThrows(RuntimeException.class, () -> store.putAsync(documents.putComment(3)).join(), "the log has failed");
        assertThrows(RuntimeException.class, store::close, "and its final snapshot with it");
        store = new DocumentStore(directory, documents.types());
        assertEquals(documents.comment(1), store.get(commentId(1)).orElseThrow(), "what was acknowledged is there");
    }

    private void assertStored(Map<DocumentId, Integer> expected, DocumentStore store, String when) {
        assertEquals(expected.size(), store.documentCount(), when);
        expected.forEach((id, n) -> assertEquals(documents.comment(n), store.get(id).orElseThrow(), id + ", " + when));
    }

    /** Segment files on a disk that can be made full (writes then fail with ENOSPC's message, after some bytes) or fail fsyncs. */
    private static final class FullingDisk implements SegmentFiles {

        private volatile boolean full = false;
        private volatile long roomLeft = 0;
        volatile boolean failForce = false;

        void full(boolean full, long roomLeft) {
            this.roomLeft = roomLeft;
            this.full = full;
        }

        boolean isFull() { return full; }

        @Override
        public FileChannel create(Path path) throws IOException { return new Channel(SegmentFiles.FILE_SYSTEM.create(path)); }

        private final class Channel extends ForwardingFileChannel {

            Channel(FileChannel file) { super(file); }

            @Override
            public int write(ByteBuffer source) throws IOException {
                if ( ! full) return file.write(source);
                if (roomLeft <= 0) throw new IOException("No space left on device");
                int fits = (int) Math.min(roomLeft, source.remaining());
                ByteBuffer part = source.duplicate();
                part.limit(part.position() + fits);
                int written = file.write(part);
                source.position(source.position() + written);
                roomLeft -= written;
                return written;
            }

            @Override
            public void force(boolean metaData) throws IOException {
                if (failForce) throw new IOException("Input/output error");
                file.force(metaData);
            }

        }

    }

}
