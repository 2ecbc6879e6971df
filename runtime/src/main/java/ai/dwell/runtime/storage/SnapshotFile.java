package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;
import com.yahoo.document.DocumentId;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * A snapshot of all documents: a {@link FileHeader} with the last serial number it covers, one
 * {@link EntryKind#PUT} entry per document (serial field: the covered serial; timestamp: the document's),
 * and an {@link EntryKind#END} entry with the document count. It is valid only if complete.
 * It is written to a temporary file which is forced and atomically renamed, and the directory forced.
 * The entries hold the documents' stored bytes, written and read back as they are.
 */
final class SnapshotFile {

    private SnapshotFile() { }

    /** Writes a snapshot of the given documents, covering the given serial number, and returns its document count. */
    static long write(DataDirectory directory, long serial, Iterable<StoredDocument> documents) throws IOException {
        Path target = directory.snapshot(serial);
        Path temporary = DataDirectory.temporary(target);
        long count = 0;
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            new FileHeader(FileHeader.SNAPSHOT_MAGIC, serial).write(channel);
            OutputStream output = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
            for (StoredDocument document : documents) {
                writeEntry(output, serial, document.timestamp(), EntryKind.PUT, document.serialized());
                count++;
            }
            writeEntry(output, serial, 0, EntryKind.END, ByteBuffer.allocate(8).putLong(count).array());
            output.flush();
            channel.force(true);
        }
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
        directory.sync();
        return count;
    }

    /**
     * Reads a snapshot, giving each document to the sink with its id, the only part of it decoded here.
     *
     * @throws IOException if the snapshot is incomplete or corrupt, in which case the sink may have been given some documents
     */
    static void read(Path file, long serial, DocumentCodec codec, BiConsumer<DocumentId, StoredDocument> sink)
            throws IOException {
        try (EntryReader reader = new EntryReader(file)) {
            reader.readHeader().verify(file, FileHeader.SNAPSHOT_MAGIC, serial);
            long count = 0;
            for (Optional<LogEntry> next = reader.next(); next.isPresent(); next = reader.next()) {
                LogEntry entry = next.get();
                switch (entry.kind()) {
                    case PUT -> {
                        sink.accept(codec.documentId(entry.payload()), new StoredDocument(entry.payload(), entry.timestamp()));
                        count++;
                    }
                    case END -> {
                        long expected = ByteBuffer.wrap(entry.payload()).getLong();
                        if (expected != count) throw new IOException(file + " ends after " + count + " of " + expected + " documents");
                        if (reader.next().isPresent()) throw new IOException(file + " has entries after its end");
                        return;
                    }
                    default -> throw new IOException("Unexpected " + entry.kind() + " entry in " + file);
                }
            }
            throw new IOException(file + " is incomplete: it has no end entry");
        }
    }

    private static void writeEntry(OutputStream output, long serial, long timestamp, EntryKind kind, byte[] payload)
            throws IOException {
        ByteBuffer entry = ByteBuffer.allocate(EntryFormat.encodedSize(payload.length));
        EntryFormat.encode(serial, timestamp, kind, payload, entry);
        output.write(entry.array());
    }

}
