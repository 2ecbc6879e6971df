package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import ai.dwell.runtime.format.ForwardingFileChannel;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.update.FieldUpdate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Power cuts. The log's segments are on a file layer that, like a disk's cache, keeps what was written but not forced
 * only until the power goes: a cut is an image of the data directory in which each segment holds what was forced and
 * a random part of what was written after (a torn write), taken while writes go on. 24 cuts at random points of a feed
 * of puts, updates and removes, with snapshots and segment rolls along the way: the store recovered from each image
 * holds every acknowledged write (a document is as its last acknowledged write left it, or as a later write that was
 * in flight at the cut left it), and nothing else. Without the fsync before acknowledging (delete the
 * {@code segment.force} in TransactionLog.write) this fails at once. What it does not cover: snapshot files (written,
 * forced and renamed before segments are pruned; DurabilityTest) and the content nodes' flushed index files
 * (IndexStateTest), which the layer does not hold.
 */
class PowerLossTest {

    private static final int CUTS = 24, DOCUMENTS = 40;

    @TempDir
    Path directories;

    private final TestDocuments documents = new TestDocuments();

    @Test
    void everyAcknowledgedWriteSurvivesPowerCuts() throws Exception {
        Random random = new Random(2026);
        int acknowledged = 0, inFlight = 0, withSnapshot = 0;
        for (int cut = 0; cut < CUTS; cut++) {
            Path directory = Files.createDirectory(directories.resolve("store-" + cut));
            Path image = directories.resolve("image-" + cut);
            PowerCutDisk disk = new PowerCutDisk(random.nextLong());
            Writes writes = new Writes();
            int cutAfter = 20 + random.nextInt(400);
            Writes.State atCut;
            try (DocumentStore store = new DocumentStore(directory, documents.types(), StoreOptions.defaults().withSnapshotEveryEntries(60), disk)) {
                for (int i = 0; i < cutAfter; i++) {
                    writes.issue(store, random);
                    if (random.nextInt(40) == 0) Thread.sleep(1); // let the commits catch up, now and then
                }
                atCut = writes.state(); // first what was acknowledged, then the image: each of those was forced before it
                disk.cut(directory, image);
                for (int i = 0; i < 50; i++) writes.issue(store, random); // the store goes on, unaware
                writes.awaitAll();
            }
            try (DocumentStore recovered = new DocumentStore(image, documents.types())) {
                assertRecovered(atCut, recovered, "cut " + cut + " after " + cutAfter + " writes");
            }
            if ( ! DurabilityTest.files(image, ".snap").isEmpty()) withSnapshot++;
            acknowledged += atCut.acknowledged();
            inFlight += atCut.issued() - atCut.acknowledged();
        }
        assertTrue(acknowledged > CUTS * 10, "writes were acknowledged before the cuts: " + acknowledged);
        assertTrue(inFlight > 0, "some writes were in flight at a cut");
        assertTrue(withSnapshot > 0, "some cuts came after a snapshot (which prunes the segments it covers)");
    }

    private void assertRecovered(Writes.State atCut, DocumentStore recovered, String when) {
        for (int d = 0; d < DOCUMENTS; d++) {
            DocumentId id = commentId(d);
            List<Document> versions = atCut.versions(id); // after each write of the id that was issued before the cut, null: absent
            int lastAcknowledged = atCut.lastAcknowledged(id); // index into versions, -1 if none (the id may be as it was before any)
            Document actual = recovered.get(id).orElse(null);
            boolean possible = lastAcknowledged < 0 && actual == null;
            for (int v = Math.max(lastAcknowledged, 0); v < versions.size() && ! possible; v++)
                possible = java.util.Objects.equals(versions.get(v), actual);
            if ( ! possible)
                fail(when + ": " + id + " is " + describe(actual) + ", but its last acknowledged version is " +
                     (lastAcknowledged < 0 ? "none" : describe(versions.get(lastAcknowledged))) + " (version " + lastAcknowledged +
                     " of " + versions.size() + " issued)");
        }
        assertTrue(recovered.documentCount() <= DOCUMENTS, when);
    }

    private static String describe(Document document) {
        return document == null ? "absent" : "'" + document.getFieldValue("text") + "' with votes " + document.getFieldValue("votes");
    }

    /** The writes issued to a store, each id's versions in order, and which were acknowledged. */
    private final class Writes {

        private final Map<DocumentId, List<Document>> versions = new HashMap<>();
        private final Map<DocumentId, Document> current = new HashMap<>();
        private final Map<DocumentId, Integer> lastAcknowledged = new ConcurrentHashMap<>();
        private final List<CompletableFuture<Result>> pending = new ArrayList<>();
        private final java.util.concurrent.atomic.AtomicInteger acknowledgedWrites = new java.util.concurrent.atomic.AtomicInteger();
        private int issued = 0;

        /** A put, an update of votes, or a remove, of a random document: asynchronous, as feed clients write. */
        void issue(DocumentStore store, Random random) {
            int n = random.nextInt(DOCUMENTS);
            DocumentId id = commentId(n);
            Document before = current.get(id);
            Document after;
            CompletableFuture<Result> write;
            int kind = random.nextInt(10);
            if (kind < 5) {
                after = documents.comment(n);
                after.setFieldValue("votes", new IntegerFieldValue(random.nextInt(1000)));
                write = store.putAsync(new com.yahoo.document.DocumentPut(after));
            }
            else if (kind < 8) {
                int votes = random.nextInt(1000);
                DocumentUpdate update = documents.updateComment(id);
                update.addFieldUpdate(FieldUpdate.createAssign(documents.commentType().getField("votes"), new IntegerFieldValue(votes)));
                write = store.updateAsync(update);
                after = before == null ? null : before.clone();
                if (after != null) after.setFieldValue("votes", new IntegerFieldValue(votes));
            }
            else {
                after = null;
                write = store.removeAsync(new DocumentRemove(id));
            }
            List<Document> list = versions.computeIfAbsent(id, __ -> new ArrayList<>());
            list.add(after);
            int version = list.size() - 1;
            current.put(id, after);
            issued++;
            pending.add(write.whenComplete((result, failure) -> {
                if (failure != null) return;
                lastAcknowledged.merge(id, version, Math::max);
                acknowledgedWrites.incrementAndGet();
            }));
        }

        void awaitAll() { pending.forEach(CompletableFuture::join); }

        /** What was issued and acknowledged by now. */
        State state() {
            int acknowledgedCount = acknowledgedWrites.get(); // before the map: the map holds at least these
            Map<DocumentId, Integer> acknowledged = Map.copyOf(lastAcknowledged);
            Map<DocumentId, List<Document>> issuedVersions = new HashMap<>();
            versions.forEach((id, list) -> issuedVersions.put(id, list.stream().map(d -> d == null ? null : d.clone()).toList())); // nulls: absent
            return new State(issuedVersions, acknowledged, issued, acknowledgedCount);
        }

        record State(Map<DocumentId, List<Document>> versionsOf, Map<DocumentId, Integer> acknowledgedOf, int issued, int acknowledged) {
            List<Document> versions(DocumentId id) { return versionsOf.getOrDefault(id, List.of()); }
            int lastAcknowledged(DocumentId id) { return acknowledgedOf.getOrDefault(id, -1); }
        }

    }

    /** Segment files whose unforced writes a power cut drops, but for a random prefix of them. */
    private static final class PowerCutDisk implements SegmentFiles {

        private final Object disk = new Object(); // writes, forces and the cut do not overlap
        private final Map<Path, Channel> segments = new ConcurrentHashMap<>();
        private final Random random;

        PowerCutDisk(long seed) { this.random = new Random(seed); }

        @Override
        public FileChannel create(Path path) throws IOException {
            synchronized (disk) {
                Channel channel = new Channel(SegmentFiles.FILE_SYSTEM.create(path));
                segments.put(path.toAbsolutePath(), channel);
                return channel;
            }
        }

        /** An image of the directory as the power cut leaves it; taken again if snapshots changed the files meanwhile. */
        void cut(Path directory, Path image) throws IOException {
            synchronized (disk) {
                for (int attempt = 0; attempt < 100; attempt++) {
                    Set<String> before = names(directory);
                    if (Files.exists(image)) deleteTree(image);
                    Files.createDirectories(image);
                    boolean complete = true;
                    for (String name : before) {
                        Path file = directory.resolve(name);
                        try {
                            Channel segment = segments.get(file.toAbsolutePath());
                            if (segment == null) Files.copy(file, image.resolve(name));
                            else segment.copySurvivingTo(file, image.resolve(name), random);
                        }
                        catch (NoSuchFileException e) {
                            complete = false;
                        }
                    }
                    if (complete && names(directory).equals(before)) return;
                }
                throw new AssertionError("The directory kept changing");
            }
        }

        private static Set<String> names(Path directory) throws IOException {
            try (var files = Files.list(directory)) {
                return new TreeSet<>(files.filter(Files::isRegularFile).map(path -> path.getFileName().toString()).toList());
            }
        }

        private static void deleteTree(Path path) throws IOException {
            try (var files = Files.walk(path)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(file);
            }
        }

        private final class Channel extends ForwardingFileChannel {

            private long forced = 0; // bytes that were forced: they survive a cut

            Channel(FileChannel file) { super(file); }

            @Override
            public int write(ByteBuffer source) throws IOException {
                synchronized (disk) { return file.write(source); }
            }

            @Override
            public FileChannel truncate(long size) throws IOException {
                synchronized (disk) {
                    file.truncate(size);
                    forced = Math.min(forced, size);
                    return this;
                }
            }

            @Override
            public void force(boolean metaData) throws IOException {
                synchronized (disk) {
                    file.force(metaData);
                    forced = file.size();
                }
            }

            /** Writes what survives the cut of the segment file: the forced bytes, then a random part of the rest (a torn write). */
            void copySurvivingTo(Path source, Path target, Random random) throws IOException {
                long written = Files.size(source);
                long survives = Math.min(written, forced + (written > forced ? (long) (random.nextDouble() * (written - forced + 1)) : 0));
                try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ);
                     FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    ByteBuffer buffer = ByteBuffer.allocate((int) survives);
                    while (buffer.hasRemaining() && in.read(buffer) >= 0) { }
                    buffer.flip();
                    while (buffer.hasRemaining()) out.write(buffer);
                }
            }

        }

    }

}
