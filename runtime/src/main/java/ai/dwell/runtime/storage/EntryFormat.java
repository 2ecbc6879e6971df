package ai.dwell.runtime.storage;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The framing of entries in log segments and snapshots, all big-endian:
 * <pre>
 * length    int32   number of bytes after the checksum field: 17 + payload length
 * checksum  int32   CRC32C of everything after this field
 * serial    int64
 * timestamp int64
 * kind      int8    see {@link EntryKind}
 * payload   byte[length - 17]
 * </pre>
 * A torn or corrupt entry has a length that runs past the end of the file or a wrong checksum.
 */
final class EntryFormat {

    static final int LENGTH_AND_CHECKSUM_SIZE = 8;
    static final int FIXED_BODY_SIZE = 8 + 8 + 1;

    private EntryFormat() { }

    static int encodedSize(int payloadLength) {
        return LENGTH_AND_CHECKSUM_SIZE + FIXED_BODY_SIZE + payloadLength;
    }

    /** Writes the entry at the buffer's position, which must have room for {@link #encodedSize} bytes. */
    static void encode(long serial, long timestamp, EntryKind kind, byte[] payload, ByteBuffer target) {
        int start = target.position();
        target.putInt(FIXED_BODY_SIZE + payload.length);
        target.putInt(0);
        target.putLong(serial).putLong(timestamp).put(kind.code()).put(payload);
        target.putInt(start + 4, checksum(target.array(), target.arrayOffset() + start + LENGTH_AND_CHECKSUM_SIZE,
                                          FIXED_BODY_SIZE + payload.length));
    }

    static int checksum(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** Decodes an entry body (everything after length and checksum) whose checksum was verified. */
    static LogEntry decodeBody(byte[] body) {
        ByteBuffer buffer = ByteBuffer.wrap(body);
        long serial = buffer.getLong();
        long timestamp = buffer.getLong();
        EntryKind kind = EntryKind.fromCode(buffer.get());
        byte[] payload = new byte[buffer.remaining()];
        buffer.get(payload);
        return new LogEntry(serial, timestamp, kind, payload);
    }

}
