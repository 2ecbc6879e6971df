package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.Records;

import java.nio.ByteBuffer;

/**
 * The entries of log segments and snapshots: each one a {@link Records record} (length, CRC32C, body)
 * whose body is, big-endian:
 * <pre>
 * serial    int64
 * timestamp int64
 * kind      int8    see {@link EntryKind}
 * payload   byte[body length - 17]
 * </pre>
 */
final class EntryFormat {

    static final int FIXED_BODY_SIZE = 8 + 8 + 1;

    private EntryFormat() { }

    static int encodedSize(int payloadLength) {
        return Records.framedSize(FIXED_BODY_SIZE + payloadLength);
    }

    /** Writes the entry at the buffer's position, which must have room for {@link #encodedSize} bytes. */
    static void encode(long serial, long timestamp, EntryKind kind, byte[] payload, ByteBuffer target) {
        int start = Records.begin(target);
        target.putLong(serial).putLong(timestamp).put(kind.code()).put(payload);
        Records.end(target, start);
    }

    /** Decodes an entry body (a record's body) whose checksum was verified. */
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
