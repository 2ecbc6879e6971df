package ai.dwell.runtime.storage;

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
    private long position = 0;

    EntryReader(Path file) throws IOException {
        this.file = file;
        this.size = Files.size(file);
        this.input = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16));
    }

    /** Reads the file header, or throws {@link CorruptEntryException} if the file is shorter than one. */
    FileHeader readHeader() throws IOException {
        if (size < FileHeader.SIZE) throw new CorruptEntryException(file, 0, "file is shorter than its header");
        FileHeader header = new FileHeader(input.readInt(), input.readLong());
        position = FileHeader.SIZE;
        return header;
    }

    /** Returns the next entry, or empty at the end of the file. */
    Optional<LogEntry> next() throws IOException {
        if (position == size) return Optional.empty();
        if (size - position < EntryFormat.LENGTH_AND_CHECKSUM_SIZE) throw corrupt("truncated entry header");
        int length = input.readInt();
        int checksum = input.readInt();
        if (length < EntryFormat.FIXED_BODY_SIZE || length > size - position - EntryFormat.LENGTH_AND_CHECKSUM_SIZE)
            throw corrupt("entry length " + length + " runs past the end of the file");
        byte[] body = new byte[length];
        input.readFully(body);
        if (EntryFormat.checksum(body, 0, length) != checksum) throw corrupt("checksum mismatch");
        position += EntryFormat.LENGTH_AND_CHECKSUM_SIZE + length;
        return Optional.of(EntryFormat.decodeBody(body));
    }

    /** The length of the file up to the end of the last entry (or header) read successfully. */
    long validLength() { return position; }

    private CorruptEntryException corrupt(String reason) {
        return new CorruptEntryException(file, position, reason);
    }

    @Override
    public void close() throws IOException {
        input.close();
    }

}
