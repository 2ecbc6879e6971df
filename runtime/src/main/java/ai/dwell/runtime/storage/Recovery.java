package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;
import com.yahoo.document.DocumentId;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Rebuilds the table of documents from a data directory: loads the newest valid snapshot, replays the
 * log entries after it, and truncates a torn or corrupt tail of the last segment, which holds only writes
 * that were never acknowledged. A corrupt entry anywhere else, or a gap in serial numbers, is an error:
 * acknowledged writes would be lost.
 *
 * <p>Documents are stored as the bytes read; only their ids are decoded, to key them (which also checks that
 * their types are known, as decoding them whole did).
 */
final class Recovery {

    /**
     * What recovery found.
     *
     * @param snapshotSerial the last serial number covered by the loaded snapshot, or 0 if none
     * @param lastSerial the last serial number in the log (or snapshot)
     * @param lastTimestamp the largest write timestamp seen
     * @param entriesReplayed the number of log entries applied after the snapshot
     */
    record Outcome(long snapshotSerial, long lastSerial, long lastTimestamp, long entriesReplayed) { }

    private static final Logger log = Logger.getLogger(Recovery.class.getName());

    private final DataDirectory directory;
    private final DocumentCodec codec;
    private final DocumentTable table;
    private long lastTimestamp = 0;

    Recovery(DataDirectory directory, DocumentCodec codec, DocumentTable table) {
        this.directory = directory;
        this.codec = codec;
        this.table = table;
    }

    Outcome run() throws IOException {
        long start = System.nanoTime();
        long snapshotSerial = loadNewestValidSnapshot();
        long documentsInSnapshot = table.size();
        long lastSerial = snapshotSerial;
        long replayed = 0;
        List<Long> segments = directory.segments();
        for (int i = 0; i < segments.size(); i++) {
            Path file = directory.segment(segments.get(i));
            try (EntryReader reader = new EntryReader(file)) {
                reader.readHeader().verify(file, FileHeader.SEGMENT_MAGIC, segments.get(i));
                for (Optional<LogEntry> next = reader.next(); next.isPresent(); next = reader.next()) {
                    LogEntry entry = next.get();
                    if (entry.serial() <= snapshotSerial) continue;
                    long first = entry.kind() == EntryKind.SKIP ? skippedFrom(entry, file) : entry.serial();
                    if (first != lastSerial + 1)
                        throw new IOException("Expected serial " + (lastSerial + 1) + " but found " + first +
                                              " in " + file + ": log entries are missing");
                    apply(entry, file);
                    lastSerial = entry.serial();
                    replayed++;
                }
            }
            catch (CorruptEntryException e) {
                if (i < segments.size() - 1) throw e;
                truncate(file, e);
            }
        }
        log.info(String.format("Recovered %d documents in %s: %d from the snapshot covering serial %d, " +
                               "then %d log entries replayed up to serial %d, in %d ms",
                               table.size(), directory.path(), documentsInSnapshot, snapshotSerial, replayed,
                               lastSerial, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        return new Outcome(snapshotSerial, lastSerial, lastTimestamp, replayed);
    }

    private long loadNewestValidSnapshot() {
        List<Long> serials = directory.snapshots();
        for (int i = serials.size() - 1; i >= 0; i--) {
            Path file = directory.snapshot(serials.get(i));
            try {
                SnapshotFile.read(file, serials.get(i), codec, this::load);
                return serials.get(i);
            }
            catch (IOException | RuntimeException e) {
                log.warning("Ignoring invalid snapshot " + file + ": " + e.getMessage());
                table.clear();
                lastTimestamp = 0;
            }
        }
        return 0;
    }

    private void load(DocumentId id, StoredDocument document) {
        table.put(id, document);
        lastTimestamp = Math.max(lastTimestamp, document.timestamp());
    }

    private void apply(LogEntry entry, Path file) throws IOException {
        switch (entry.kind()) {
            case PUT -> load(codec.documentId(entry.payload()), new StoredDocument(entry.payload(), entry.timestamp()));
            case REMOVE -> {
                table.remove(codec.deserializeId(entry.payload()));
                lastTimestamp = Math.max(lastTimestamp, entry.timestamp());
            }
            case SKIP -> { } // serials never written: their writes failed
            default -> throw new IOException("Unexpected " + entry.kind() + " entry in " + file);
        }
    }

    /** The first of the serials a SKIP entry says were never written (its own serial is the last of them). */
    private static long skippedFrom(LogEntry entry, Path file) throws IOException {
        if (entry.payload().length != Long.BYTES) throw new IOException("Malformed " + entry.kind() + " entry in " + file);
        long first = ByteBuffer.wrap(entry.payload()).getLong();
        if (first > entry.serial()) throw new IOException("Malformed " + entry.kind() + " entry in " + file + ": it skips " + first + " to " + entry.serial());
        return first;
    }

    /** Cuts off the torn tail of the last segment, or deletes it if not even its header is whole. */
    private void truncate(Path file, CorruptEntryException e) throws IOException {
        long length = Files.size(file);
        log.warning(e.getMessage() + "; dropping the last " + (length - e.validLength()) + " bytes, never acknowledged");
        if (e.validLength() < FileHeader.SIZE) {
            Files.delete(file);
        }
        else {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(e.validLength());
                channel.force(true);
            }
        }
        directory.sync();
    }

}
