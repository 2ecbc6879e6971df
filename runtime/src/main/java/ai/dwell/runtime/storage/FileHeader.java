package ai.dwell.runtime.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The 12-byte header of a log segment or snapshot file: a magic number that names the format and
 * its version, and a serial number (a segment's first serial, or the last serial a snapshot covers).
 */
record FileHeader(int magic, long serial) {

    static final int SIZE = 12;
    /** "DWL1": transaction log segment, version 1. */
    static final int SEGMENT_MAGIC = 0x44574C31;
    /** "DWS1": snapshot, version 1. */
    static final int SNAPSHOT_MAGIC = 0x44575331;

    void write(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE).putInt(magic).putLong(serial).flip();
        while (buffer.hasRemaining()) channel.write(buffer);
    }

    /** Throws if this is not the header expected in the given file. */
    void verify(Path file, int expectedMagic, long expectedSerial) throws IOException {
        if (magic != expectedMagic || serial != expectedSerial)
            throw new IOException("Unexpected header in " + file + ": magic " + Integer.toHexString(magic) +
                                  ", serial " + serial);
    }

}
