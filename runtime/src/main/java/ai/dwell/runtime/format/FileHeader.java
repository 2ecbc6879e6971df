package ai.dwell.runtime.format;

import java.io.DataInput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The 12-byte header of a file of records, big-endian: a magic number that names the format and its
 * version (int32), and a serial number (int64; in a log segment its first serial, in a snapshot the last
 * serial it covers).
 */
public record FileHeader(int magic, long serial) {

    public static final int SIZE = 12;
    /** "DWL1": transaction log segment, version 1. */
    public static final int SEGMENT_MAGIC = 0x44574C31;
    /** "DWS1": snapshot, version 1. */
    public static final int SNAPSHOT_MAGIC = 0x44575331;

    /** Reads a header from the input, which must hold at least {@link #SIZE} more bytes. */
    public static FileHeader read(DataInput input) throws IOException {
        return new FileHeader(input.readInt(), input.readLong());
    }

    public void write(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE).putInt(magic).putLong(serial).flip();
        while (buffer.hasRemaining()) channel.write(buffer);
    }

    /** Throws if this is not the header expected in the given file. */
    public void verify(Path file, int expectedMagic, long expectedSerial) throws IOException {
        if (magic != expectedMagic || serial != expectedSerial)
            throw new IOException("Unexpected header in " + file + ": magic " + Integer.toHexString(magic) +
                                  ", serial " + serial);
    }

}
