package ai.dwell.runtime.engine.group;

/**
 * One grouping expression (searchlib's ExpressionNode) compiled to be evaluated per document, as proton's
 * expression nodes evaluate it: a value of one type (integer, float or string, the type proton's node prepares),
 * readable as any of the three with proton's conversions (ResultNode getInteger, getFloat, getString).
 * Evaluation does not allocate, except for a string value.
 */
public abstract class GroupValue {

    /** RAW is bytes (proton's RawResultNode: cat and md5), read as an integer or float by its first 8 bytes, big-endian. */
    public enum Type { INTEGER, FLOAT, STRING, RAW }

    private final Type type;

    protected GroupValue(Type type) { this.type = type; }

    public final Type type() { return type; }

    /** This value as an integer: a float rounded half away from zero (NaN is Long.MIN_VALUE), a string's leading integer. */
    public long integer(int lid, double rank) {
        return switch (type) {
            case INTEGER -> throw new IllegalStateException("An integer value must implement integer()");
            case FLOAT -> roundToLong(floating(lid, rank));
            case STRING -> NumberText.leadingInteger(string(lid, rank));
            case RAW -> firstEight(raw(lid, rank));
        };
    }

    /** This value as a float. */
    public double floating(int lid, double rank) {
        return switch (type) {
            case INTEGER -> integer(lid, rank);
            case FLOAT -> throw new IllegalStateException("A float value must implement floating()");
            case STRING -> NumberText.leadingFloat(string(lid, rank));
            case RAW -> Double.longBitsToDouble(firstEight(raw(lid, rank)));
        };
    }

    /** This value as a string: an integer in decimal, a float as C's %g writes it. */
    public String string(int lid, double rank) {
        return switch (type) {
            case INTEGER -> Long.toString(integer(lid, rank));
            case FLOAT -> NumberText.g(floating(lid, rank));
            case STRING -> throw new IllegalStateException("A string value must implement string()");
            case RAW -> throw new IllegalStateException("A raw value is not read as a string here");
        };
    }

    /** This value's bytes (a raw value only). */
    public byte[] raw(int lid, double rank) {
        throw new IllegalStateException("Only a raw value has bytes");
    }

    /** The first 8 bytes (zero-filled after the last) as a big-endian long, as proton's RawResultNode getInteger. */
    static long firstEight(byte[] bytes) {
        long value = 0;
        for (int i = 0; i < 8; i++) value = (value << 8) | (i < bytes.length ? bytes[i] & 0xffL : 0);
        return value;
    }

    static long roundToLong(double value) {
        if (Double.isNaN(value)) return Long.MIN_VALUE;
        return value < 0 ? -Math.round(-value) : Math.round(value);
    }

}
