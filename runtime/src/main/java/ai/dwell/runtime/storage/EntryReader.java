package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;
import ai.dwell.runtime.format.RecordReader;
import ai.dwell.runtime.format.TornRecordException;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Reads a file header and then {@link EntryFormat} entries from a log segment or snapshot, verifying each. */
final class EntryReader implements AutoCloseable {

    private final Path file;
    private final long size;
    private final DataInputStream input;
    private RecordReader records = null;

    EntryReader(Path file) throws IOException {
        this.file = file;
        this.size = Files.size(file);
        this.input = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
    }

    /** Reads the file header, or throws {@link CorruptEntryException} if the file is shorter than one. */
    FileHeader readHeader() throws IOException {
        if (size < FileHeader.SIZE) throw new CorruptEntryException(file, 0, "file is shorter than its header");
        FileHeader header = FileHeader.read(input);
        records = new RecordReader(input, FileHeader.SIZE, size, EntryFormat.FIXED_BODY_SIZE, Integer.MAX_VALUE, "entry");
        return header;
    }

    /** Returns the next entry, or empty at the end of the file. Throws {@link CorruptEntryException} at a torn or corrupt entry. */
    Optional<LogEntry> next() throws IOException {
        if (records == null) throw new IllegalStateException("The header of " + file + " is not read");
        try {
            return records.next().map(EntryFormat::decodeBody);
        }
        catch (TornRecordException e) {
            throw new CorruptEntryException(file, e.validLength(), e.reason());
        }
    }

    /** The length of the file up to the end of the last entry (or header) read successfully. */
    long validLength() { return records == null ? 0 : records.validLength(); }

    @Override
    public void close() throws IOException {
        input.close();
    }

}
