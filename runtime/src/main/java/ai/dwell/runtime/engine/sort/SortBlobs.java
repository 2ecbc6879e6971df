package ai.dwell.runtime.engine.sort;

import java.util.Arrays;

/**
 * The sort blobs of a query's candidate hits, back to back in one growing byte array (as proton's
 * FastS_SortSpec keeps them): blob i is data[start(i), start(i + 1)). Numbers are written in proton's
 * order-preserving big-endian forms (vespalib convertForSort), so that blobs compare as unsigned bytes.
 */
final class SortBlobs {

    private byte[] data = new byte[256];
    private int[] starts = new int[17];
    private int size = 0;
    private int count = 0;

    /** Ends the blob being written; the next writes go to a new blob. */
    void endBlob() {
        if (count + 2 > starts.length) starts = Arrays.copyOf(starts, starts.length * 2);
        starts[++count] = size;
    }

    int count() { return count; }
    int start(int blob) { return starts[blob]; }
    int end(int blob) { return starts[blob + 1]; }
    byte[] data() { return data; }

    /** A copy of one blob, for a hit in the reply. */
    byte[] blob(int blob) { return Arrays.copyOfRange(data, starts[blob], starts[blob + 1]); }

    void put(int b) {
        ensure(1);
        data[size++] = (byte) b;
    }

    /** Appends bytes, each inverted (0xff - b) when descending, as proton writes strings and global ids. */
    void put(byte[] bytes, boolean ascending) {
        ensure(bytes.length);
        for (byte b : bytes) data[size++] = ascending ? b : (byte) (0xff - (b & 0xff));
    }

    /** A signed integer of this many bytes: the sign bit flipped ascending, the other bits flipped descending. */
    void putInteger(long value, int bytes, boolean ascending) {
        long signBit = 1L << (bytes * 8 - 1);
        putBigEndian(ascending ? value ^ signBit : value ^ (signBit - 1), bytes);
    }

    void putFloat(float value, boolean ascending) {
        int bits = Float.floatToRawIntBits(value);
        if (ascending) bits = bits >= 0 ? bits ^ Integer.MIN_VALUE : ~bits;
        else if (bits >= 0) bits ^= Integer.MAX_VALUE;
        putBigEndian(bits & 0xffffffffL, 4);
    }

    void putDouble(double value, boolean ascending) {
        long bits = Double.doubleToRawLongBits(value);
        if (ascending) bits = bits >= 0 ? bits ^ Long.MIN_VALUE : ~bits;
        else if (bits >= 0) bits ^= Long.MAX_VALUE;
        putBigEndian(bits, 8);
    }

    private void putBigEndian(long bits, int bytes) {
        ensure(bytes);
        for (int i = bytes - 1; i >= 0; i--) data[size++] = (byte) (bits >>> (8 * i));
    }

    private void ensure(int more) {
        if (size + more > data.length) data = Arrays.copyOf(data, Math.max(data.length * 2, size + more));
    }

}
