package ai.dwell.runtime.format;

import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The framing of a record in the runtime's files, big-endian:
 * <pre>
 * length    int32   number of bytes in the body
 * checksum  int32   CRC32C of the body
 * body      byte[length]
 * </pre>
 * A torn or corrupt record has a length that runs past the end of the file or a wrong checksum;
 * {@link RecordReader} stops there.
 */
public final class Records {

    /** The bytes before the body: length and checksum. */
    public static final int FRAME_SIZE = 8;

    private Records() { }

    /** The size of a record with a body of the given length. */
    public static int framedSize(int bodyLength) {
        return FRAME_SIZE + bodyLength;
    }

    /**
     * Begins a record at the target's position, to be followed by the body written into the target
     * and then {@link #end}. Returns the position the record starts at.
     */
    public static int begin(ByteBuffer target) {
        int start = target.position();
        target.putInt(0).putInt(0);
        return start;
    }

    /** Ends the record begun at start: its body is everything written after the frame, up to the target's position. */
    public static void end(ByteBuffer target, int start) {
        int bodyLength = target.position() - start - FRAME_SIZE;
        target.putInt(start, bodyLength);
        target.putInt(start + 4, checksum(target.array(), target.arrayOffset() + start + FRAME_SIZE, bodyLength));
    }

    /** Writes a record with the given body. */
    public static void write(DataOutput output, byte[] body) throws IOException {
        output.writeInt(body.length);
        output.writeInt(checksum(body, 0, body.length));
        output.write(body);
    }

    /** The CRC32C of the given bytes, as a record's checksum field holds it. */
    public static int checksum(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

}
