package ai.dwell.runtime.format;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Reads what a {@link StateOutput} wrote, up to a known number of bytes, with the CRC32C of every byte read.
 * Whole arrays are copied out of one buffer. A length that runs past the end throws {@link CorruptStateException}:
 * the caller never allocates from a damaged length.
 */
public final class StateInput {

    private static final int BUFFER_SIZE = 1 << 20;

    private final ReadableByteChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc = new CRC32C();
    private long unread; // bytes not yet taken into the buffer

    /** Reads at most size bytes from the channel, from its position. */
    public StateInput(ReadableByteChannel channel, long size) {
        this.channel = channel;
        this.unread = size;
        buffer.flip(); // empty
    }

    public byte readByte() throws IOException { need(1); return buffer.get(); }
    public boolean readBoolean() throws IOException { return readByte() != 0; }
    public int readInt() throws IOException { need(4); return buffer.getInt(); }
    public long readLong() throws IOException { need(8); return buffer.getLong(); }
    public float readFloat() throws IOException { need(4); return buffer.getFloat(); }
    public double readDouble() throws IOException { need(8); return buffer.getDouble(); }

    /** A length (int32) that must be in [0, max] and fit in what is left, as checked by the caller's element size. */
    public int readLength(long elementSize) throws IOException {
        int length = readInt();
        if (length < 0 || length * elementSize > remaining())
            throw new CorruptStateException("length " + length + " runs past the end of the state (" + remaining() + " bytes left)");
        return length;
    }

    public String readString() throws IOException {
        byte[] bytes = readBytes();
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    /** A byte array written by {@link StateOutput#writeBytes}, null included. */
    public byte[] readBytes() throws IOException {
        int length = readInt();
        if (length == -1) return null;
        if (length < 0 || length > remaining())
            throw new CorruptStateException("length " + length + " runs past the end of the state (" + remaining() + " bytes left)");
        byte[] bytes = new byte[length];
        readRaw(bytes, 0, length);
        return bytes;
    }

    public void readRaw(byte[] target, int offset, int length) throws IOException {
        while (length > 0) {
            need(1);
            int n = Math.min(length, buffer.remaining());
            buffer.get(target, offset, n);
            offset += n;
            length -= n;
        }
    }

    public void readInts(int[] target, int from, int to) throws IOException {
        while (from < to) {
            need(4);
            int n = Math.min(to - from, buffer.remaining() / 4);
            buffer.asIntBuffer().get(target, from, n);
            buffer.position(buffer.position() + 4 * n);
            from += n;
        }
    }

    public void readLongs(long[] target, int from, int to) throws IOException {
        while (from < to) {
            need(8);
            int n = Math.min(to - from, buffer.remaining() / 8);
            buffer.asLongBuffer().get(target, from, n);
            buffer.position(buffer.position() + 8 * n);
            from += n;
        }
    }

    public void readFloats(float[] target, int from, int to) throws IOException {
        while (from < to) {
            need(4);
            int n = Math.min(to - from, buffer.remaining() / 4);
            buffer.asFloatBuffer().get(target, from, n);
            buffer.position(buffer.position() + 4 * n);
            from += n;
        }
    }

    public void readDoubles(double[] target, int from, int to) throws IOException {
        while (from < to) {
            need(8);
            int n = Math.min(to - from, buffer.remaining() / 8);
            buffer.asDoubleBuffer().get(target, from, n);
            buffer.position(buffer.position() + 8 * n);
            from += n;
        }
    }

    /** The bytes not yet read. */
    public long remaining() { return unread + buffer.remaining(); }

    /** The CRC32C of every byte read so far. */
    public int checksum() {
        return (int) crc.getValue();
    }

    /** Ensures the buffer holds at least the given number of bytes (at most 8), reading more as needed. */
    private void need(int bytes) throws IOException {
        if (buffer.remaining() >= bytes) return;
        if (remaining() < bytes) throw new CorruptStateException("the state ends " + (bytes - remaining()) + " bytes early");
        buffer.compact();
        int start = buffer.position();
        int limit = (int) Math.min(buffer.capacity(), start + unread);
        buffer.limit(limit);
        while (buffer.position() < limit)
            if (channel.read(buffer) < 0) throw new EOFException("the state's file ends early");
        crc.update(buffer.array(), buffer.arrayOffset() + start, limit - start);
        unread -= limit - start;
        buffer.flip();
    }

}
