package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.datatypes.IntegerFieldValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recovery from the data directory: after a clean close, and from crash images, i.e., copies of the
 * directory taken while the store is open, which is what a crash of the process leaves behind.
 */
class DurabilityTest {

    @TempDir
    Path directory;

    @TempDir
    Path crashImage;

    private final TestDocuments documents = new TestDocuments();

    @Test
    void everythingIsBackAfterReopening() {
        long lastModified;
        List<Document> written;
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            for (int n = 0; n < 100; n++) store.put(documents.putComment(n));
            store.put(new DocumentPut(documents.author("ann")));
            store.update(documents.incrementVotes(commentId(7), 1000));
            store.remove(new DocumentRemove(commentId(8)));
            lastModified = store.get(commentId(7)).orElseThrow().getLastModified();
            written = all(store);
            copy(directory, crashImage); // only a log to replay: no snapshot was taken yet
        }
        assertEquals(1, files(directory, ".snap").size(), "closing took a snapshot");
        assertEquals(0, files(crashImage, ".snap").size());
        for (Path storeDirectory : List.of(directory, crashImage)) {
            try (DocumentStore store = new DocumentStore(storeDirectory, documents.types())) {
                assertEquals(100, store.documentCount());
                assertSameDocuments(written, all(store));
                assertEquals(new IntegerFieldValue(1007), store.get(commentId(7)).orElseThrow().getFieldValue("votes"));
                assertEquals(lastModified, store.get(commentId(7)).orElseThrow().getLastModified());
                assertEquals(Optional.empty(), store.get(commentId(8)));
                assertEquals(documents.comment(99), store.get(commentId(99)).orElseThrow());
                assertTrue(store.put(documents.putComment(100)).succeeded());
                assertTrue(store.get(commentId(100)).orElseThrow().getLastModified() > lastModified, "timestamps keep increasing");
            }
        }
    }

    /** Asserts that the documents have the same fields, the same last-modified times, and the same serialization. */
    private void assertSameDocuments(List<Document> expected, List<Document> actual) {
        assertEquals(expected, actual);
        assertEquals(expected.stream().map(Document::getLastModified).toList(), actual.stream().map(Document::getLastModified).toList());
        DocumentCodec codec = new DocumentCodec(documents.types());
        for (int i = 0; i < expected.size(); i++)
            assertArrayEquals(codec.serialize(expected.get(i)), codec.serialize(actual.get(i)), "serialization of " + expected.get(i).getId());
    }

    private static List<Document> all(DocumentStore store) {
        return store.visit(null, null, null, 1000).documents();
    }

    @Test
    void theDirectoryCanBeOpenedByOneStoreAtATime() {
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            assertThrows(IllegalStateException.class, () -> new DocumentStore(directory, documents.types()));
        }
    }

    @Test
    void aTornTailIsTruncatedAndEverythingBeforeItIsRecovered() throws IOException {
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            for (int n = 0; n < 50; n++) store.put(documents.putComment(n));
            copy(directory, crashImage);
        }
        Path segment = lastSegment(crashImage);
        truncate(segment, Files.size(segment) - 5);

        try (DocumentStore store = new DocumentStore(crashImage, documents.types())) {
            assertEquals(49, store.documentCount());
            for (int n = 0; n < 49; n++) assertEquals(documents.comment(n), store.get(commentId(n)).orElseThrow());
            store.put(documents.putComment(49));
        }
        try (DocumentStore store = new DocumentStore(crashImage, documents.types())) {
            assertEquals(50, store.documentCount(), "the store is usable after truncation");
        }
    }

    @Test
    void garbageAfterTheLastEntryIsDropped() throws IOException {
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            for (int n = 0; n < 20; n++) store.put(documents.putComment(n));
            copy(directory, crashImage);
        }
        Files.write(lastSegment(crashImage), new byte[] { 0, 0, 0, 40, 1, 2, 3, 4, 5, 6, 7 }, StandardOpenOption.APPEND);
        try (DocumentStore store = new DocumentStore(crashImage, documents.types())) {
            assertEquals(20, store.documentCount());
        }
    }

    @Test
    void snapshotsBoundTheLogAndRecoveryCombinesTheSnapshotWithTheLogAfterIt() throws IOException {
        StoreOptions options = StoreOptions.defaults().withSnapshotEveryEntries(40);
        try (DocumentStore store = new DocumentStore(directory, documents.types(), options)) {
            for (int n = 0; n < 300; n++) store.put(documents.putComment(n));
            store.snapshot();
            for (int n = 0; n < 300; n += 3) store.update(documents.incrementVotes(commentId(n), 1000));
            for (int n = 1; n < 300; n += 3) store.remove(new DocumentRemove(commentId(n)));
            assertTrue(files(directory, ".seg").size() <= 3, "covered segments are deleted: " + files(directory, ".seg"));
            assertTrue(files(directory, ".snap").size() <= 2, "older snapshots are deleted: " + files(directory, ".snap"));
            copy(directory, crashImage);
        }
        for (Path storeDirectory : List.of(crashImage, directory)) {
            try (DocumentStore store = new DocumentStore(storeDirectory, documents.types(), options)) {
                assertEquals(200, store.documentCount());
                for (int n = 0; n < 300; n++) {
                    switch (n % 3) {
                        case 0 -> assertEquals(new IntegerFieldValue(n % 100 + 1000), store.get(commentId(n)).orElseThrow().getFieldValue("votes"));
                        case 1 -> assertEquals(Optional.empty(), store.get(commentId(n)));
                        case 2 -> assertEquals(documents.comment(n), store.get(commentId(n)).orElseThrow());
                    }
                }
            }
        }
    }

    /**
     * A kill -9 at every point of a snapshot and the log pruning after it: with the new snapshot half written
     * (a .tmp), and with the new snapshot in place and each prefix of what it makes obsolete (the older snapshot,
     * then the covered segments in order) deleted. Each image recovers every write, as the store had it.
     */
    @Test
    void aCrashAnywhereInASnapshotOrThePruningAfterItLosesNothing() throws IOException {
        StoreOptions options = StoreOptions.defaults().withSnapshotEveryEntries(Long.MAX_VALUE);
        Path before = crashImage.resolve("before"), after = crashImage.resolve("after");
        Files.createDirectories(before);
        Files.createDirectories(after);
        List<Document> written;
        try (DocumentStore store = new DocumentStore(directory, documents.types(), options)) {
            for (int n = 0; n < 200; n++) store.put(documents.putComment(n));
            store.snapshot();
            for (int n = 0; n < 200; n += 2) store.update(documents.incrementVotes(commentId(n), 7));
            for (int n = 1; n < 200; n += 4) store.remove(new DocumentRemove(commentId(n)));
            for (int n = 200; n < 260; n++) store.put(documents.putComment(n));
            written = all(store);
            copy(directory, before);
            store.snapshot();
            copy(directory, after);
        }
        List<Path> obsolete = Stream.concat(files(before, ".snap").stream(), files(before, ".seg").stream())
                                    .map(Path::getFileName)
                                    .filter(name -> ! Files.exists(after.resolve(name)))
                                    .toList();
        assertEquals(2, obsolete.size(), "the older snapshot and the segment the new one covers are deleted: " + obsolete);
        Path newSnapshot = files(after, ".snap").get(0).getFileName();

        Path halfWritten = crashImage.resolve("half-written snapshot");
        copyAll(before, halfWritten);
        byte[] snapshot = Files.readAllBytes(after.resolve(newSnapshot));
        Files.write(halfWritten.resolve(newSnapshot + ".tmp"), java.util.Arrays.copyOf(snapshot, snapshot.length / 2));
        assertRecovers(written, halfWritten, options);
        assertEquals(List.of(), files(halfWritten, ".tmp"), "the torn snapshot is deleted");

        for (int deleted = 0; deleted <= obsolete.size(); deleted++) {
            Path image = crashImage.resolve("pruned " + deleted);
            copyAll(before, image);
            copyAll(after, image);
            for (Path name : obsolete.subList(0, deleted)) Files.delete(image.resolve(name));
            assertRecovers(written, image, options);
        }
    }

    private void assertRecovers(List<Document> expected, Path image, StoreOptions options) {
        try (DocumentStore store = new DocumentStore(image, documents.types(), options)) {
            assertSameDocuments(expected, all(store));
        }
    }

    private static void copyAll(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        for (Path file : files(from, "")) Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void corruptionBeforeTheTailFailsRecoveryInsteadOfLosingAcknowledgedWrites() throws IOException {
        try (DocumentStore store = new DocumentStore(directory, documents.types())) {
            for (int n = 0; n < 20; n++) store.put(documents.putComment(n));
            copy(directory, crashImage);
        }
        Path segment = lastSegment(crashImage);
        try (FileChannel later = FileChannel.open(crashImage.resolve(String.format("log-%020d.seg", 1000)),
                                                  StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            new FileHeader(FileHeader.SEGMENT_MAGIC, 1000).write(later); // makes the corrupt segment not the last
        }
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.wrap(new byte[] { 42 }), FileHeader.SIZE + 30);
        }
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> new DocumentStore(crashImage, documents.types()));
        assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
    }

    /**
     * Copies the store's files as a crash would leave them. The store may delete a segment a snapshot
     * covers while the copy runs; then the copy starts over, so that every file listed was copied.
     */
    private static void copy(Path from, Path to) {
        for (int attempt = 0; ; attempt++) {
            try (Stream<Path> files = Files.list(from)) {
                for (Path file : files.toList()) Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                return;
            }
            catch (NoSuchFileException e) {
                if (attempt == 10) throw new UncheckedIOException(e);
                deleteFiles(to);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void deleteFiles(Path directory) {
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) Files.delete(file);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Path> files(Path directory, String suffix) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.toString().endsWith(suffix)).sorted().toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path lastSegment(Path directory) {
        List<Path> segments = files(directory, ".seg");
        return segments.get(segments.size() - 1);
    }

    private static void truncate(Path file, long length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        }
    }

}
