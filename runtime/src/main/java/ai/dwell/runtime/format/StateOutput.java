package ai.dwell.runtime.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Writes flushed state (a content node's attributes, postings, documents, graphs) to a channel: little-endian
 * values and whole arrays copied through one buffer, with a CRC32C over every byte written, so that a large
 * array costs one bulk copy, not a call per element. Read it back with {@link StateInput}.
 */
public final class StateOutput {

    private static final int BUFFER_SIZE = 1 << 20;

    private final WritableByteChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    private final CRC32C crc = new CRC32C();
    private long written = 0;

    public StateOutput(WritableByteChannel channel) {
        this.channel = channel;
    }

    public void writeByte(int value) throws IOException { room(1); buffer.put((byte) value); }
    public void writeBoolean(boolean value) throws IOException { writeByte(value ? 1 : 0); }
    public void writeInt(int value) throws IOException { room(4); buffer.putInt(value); }
    public void writeLong(long value) throws IOException { room(8); buffer.putLong(value); }
    public void writeFloat(float value) throws IOException { room(4); buffer.putFloat(value); }
    public void writeDouble(double value) throws IOException { room(8); buffer.putDouble(value); }

    /** A string as its UTF-8 length (int32) and bytes; null as length -1. */
    public void writeString(String value) throws IOException {
        writeBytes(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** A byte array as its length (int32) and bytes; null as length -1. */
    public void writeBytes(byte[] value) throws IOException {
        if (value == null) { writeInt(-1); return; }
        writeInt(value.length);
        writeRaw(value, 0, value.length);
    }

    /** Bytes as they are, without a length. */
    public void writeRaw(byte[] bytes, int offset, int length) throws IOException {
        while (length > 0) {
            room(1);
            int n = Math.min(length, buffer.remaining());
            buffer.put(bytes, offset, n);
            offset += n;
            length -= n;
        }
    }

    /** The elements [from, to) of an array, without a length. */
    public void writeInts(int[] values, int from, int to) throws IOException {
        while (from < to) {
            room(4);
            int n = Math.min(to - from, buffer.remaining() / 4);
            buffer.asIntBuffer().put(values, from, n);
            buffer.position(buffer.position() + 4 * n);
            from += n;
        }
    }

    /** The elements [from, to) of an array, without a length. */
    public void writeLongs(long[] values, int from, int to) throws IOException {
        while (from < to) {
            room(8);
            int n = Math.min(to - from, buffer.remaining() / 8);
            buffer.asLongBuffer().put(values, from, n);
            buffer.position(buffer.position() + 8 * n);
            from += n;
        }
    }

    /** The elements [from, to) of an array, without a length. */
    public void writeFloats(float[] values, int from, int to) throws IOException {
        while (from < to) {
            room(4);
            int n = Math.min(to - from, buffer.remaining() / 4);
            buffer.asFloatBuffer().put(values, from, n);
            buffer.position(buffer.position() + 4 * n);
            from += n;
        }
    }

    /** The elements [from, to) of an array, without a length. */
    public void writeDoubles(double[] values, int from, int to) throws IOException {
        while (from < to) {
            room(8);
            int n = Math.min(to - from, buffer.remaining() / 8);
            buffer.asDoubleBuffer().put(values, from, n);
            buffer.position(buffer.position() + 8 * n);
            from += n;
        }
    }

    /** Writes out what is buffered. */
    public void flush() throws IOException {
        buffer.flip();
        crc.update(buffer.array(), buffer.arrayOffset(), buffer.limit());
        written += buffer.limit();
        while (buffer.hasRemaining()) channel.write(buffer);
        buffer.clear();
    }

    /** The CRC32C of every byte written so far (flushes). */
    public int checksum() throws IOException {
        flush();
        return (int) crc.getValue();
    }

    /** The number of bytes written so far (flushes). */
    public long size() throws IOException {
        flush();
        return written;
    }

    private void room(int bytes) throws IOException {
        if (buffer.remaining() < bytes) flush();
    }

}
