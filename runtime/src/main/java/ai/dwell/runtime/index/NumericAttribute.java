package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A single-value numeric attribute: each kind in an array of its own width (int32 in an int[], float in a float[]),
 * Vespa's undefined value stored where a document has none, so that ranking reads one array per value.
 * With fast-search, a value → local ids posting map (a {@link PostingList} per distinct value, so a
 * timestamp with a value per document costs a few words per document) answers terms and ranges without a scan.
 */
public final class NumericAttribute extends Attribute {

    /** The kinds of numbers Vespa distinguishes, with their undefined values. */
    public enum Kind {
        INT32(Integer.MIN_VALUE), INT64(Long.MIN_VALUE), FLOAT(Double.NaN), DOUBLE(Double.NaN);
        final double undefined;
        Kind(double undefined) { this.undefined = undefined; }
        boolean integral() { return this == INT32 || this == INT64; }
    }

    private final Kind kind;
    // One column, in the kind's own width (as proton stores them), with the undefined value inline where no value
    // is set, so that ranking reads one array and nothing else per document: int32 in ints, int64 in longs,
    // float in floats, double in doubles. The others stay empty.
    private int[] ints = new int[0];
    private long[] longs = new long[0];
    private float[] floats = new float[0];
    private double[] doubles = new double[0];
    /** Which local ids have a value (a value equal to the undefined one included), for summaries, scans and clearing. */
    private final BitSet present = new BitSet();
    private final NavigableMap<Double, PostingList> postings;

    /** Whether this is a bool attribute: 0 and 1, fed as booleans, matched by true and false (and 0 and 1). */
    private final boolean bool;

    public NumericAttribute(String name, Kind kind, boolean fastSearch) {
        this(name, kind, fastSearch, false);
    }

    public NumericAttribute(String name, Kind kind, boolean fastSearch, boolean bool) {
        super(name);
        this.kind = kind;
        this.postings = fastSearch ? new TreeMap<>() : null;
        this.bool = bool;
    }

    public Kind kind() { return kind; }

    @Override public boolean isNumeric() { return true; }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        if (bool && value instanceof com.yahoo.document.datatypes.BoolFieldValue truth) value = new com.yahoo.document.datatypes.IntegerFieldValue(truth.getBoolean() ? 1 : 0);
        if ( ! (value instanceof NumericFieldValue number))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes numbers, got " + value.getDataType().getName());
        ensure(lid);
        switch (kind) {
            case INT32 -> ints[lid] = (int) number.getNumber().longValue();
            case INT64 -> longs[lid] = number.getNumber().longValue();
            case FLOAT -> floats[lid] = number.getNumber().floatValue();
            case DOUBLE -> doubles[lid] = number.getNumber().doubleValue();
        }
        present.set(lid);
        if (postings != null) postings.computeIfAbsent(number(lid), k -> new PostingList()).add(lid);
    }

    @Override
    public void clear(int lid) {
        if ( ! present.get(lid)) return;
        if (postings != null) {
            Double key = number(lid);
            PostingList ids = postings.get(key);
            if (ids != null) {
                ids.remove(lid);
                if (ids.isEmpty()) postings.remove(key);
            }
        }
        present.clear(lid);
        storeUndefined(lid);
    }

    private void storeUndefined(int lid) {
        switch (kind) {
            case INT32 -> ints[lid] = Integer.MIN_VALUE;
            case INT64 -> longs[lid] = Long.MIN_VALUE;
            case FLOAT -> floats[lid] = Float.NaN;
            case DOUBLE -> doubles[lid] = Double.NaN;
        }
    }

    @Override
    public double number(int lid) {
        return switch (kind) {
            case INT32 -> lid < ints.length ? ints[lid] : kind.undefined;
            case INT64 -> lid < longs.length ? longs[lid] : kind.undefined;
            case FLOAT -> lid < floats.length ? floats[lid] : kind.undefined;
            case DOUBLE -> lid < doubles.length ? doubles[lid] : kind.undefined;
        };
    }

    /** One read per document: the column holds the undefined value where no value is set. */
    @Override
    public void numbers(int[] lids, int count, double[] out) {
        double undefined = kind.undefined;
        switch (kind) {
            case INT32 -> {
                int[] values = ints;
                for (int k = 0; k < count; k++) { int lid = lids[k]; out[k] = lid < values.length ? values[lid] : undefined; }
            }
            case INT64 -> {
                long[] values = longs;
                for (int k = 0; k < count; k++) { int lid = lids[k]; out[k] = lid < values.length ? values[lid] : undefined; }
            }
            case FLOAT -> {
                float[] values = floats;
                for (int k = 0; k < count; k++) { int lid = lids[k]; out[k] = lid < values.length ? values[lid] : undefined; }
            }
            case DOUBLE -> {
                double[] values = doubles;
                for (int k = 0; k < count; k++) { int lid = lids[k]; out[k] = lid < values.length ? values[lid] : undefined; }
            }
        }
    }

    /** The integral value, for int and long attributes. */
    @Override
    public long longValue(int lid) {
        if ( ! present.get(lid)) return (long) kind.undefined;
        return kind == Kind.INT32 ? ints[lid] : kind == Kind.INT64 ? longs[lid] : (long) number(lid);
    }

    @Override
    public Object value(int lid) {
        if ( ! present.get(lid)) return null;
        if (bool) return longValue(lid) != 0;
        return kind.integral() ? (Object) longValue(lid) : (Object) number(lid);
    }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        String t = term.trim();
        if (bool && (t.equalsIgnoreCase("true") || t.equalsIgnoreCase("false"))) t = t.equalsIgnoreCase("true") ? "1" : "0";
        if (kind == Kind.INT64 && ! (t.startsWith("[") || t.startsWith("<") || t.startsWith(">"))) {
            Long exact = integer(t);
            if (exact != null) {
                matchIntegerRange(exact, true, exact, true, candidates, result);
                return true;
            }
        }
        if (t.startsWith("[") || t.startsWith("<") || t.startsWith(">")) {
            NumericRange range = NumericRange.parse(t);
            if (range == null) return false;
            matchRange(range.low(), range.lowInclusive(), range.high(), range.highInclusive(), candidates, result);
            return true;
        }
        double value;
        try { value = Double.parseDouble(t); }
        catch (NumberFormatException e) { return false; }
        matchRange(value, true, value, true, candidates, result);
        return true;
    }

    @Override
    public Optional<List<PostingList>> termPostings(String term) {
        if (postings == null) return Optional.empty();
        String t = term.trim();
        if (kind == Kind.INT64 && ! (t.startsWith("[") || t.startsWith("<") || t.startsWith(">"))) {
            Long exact = integer(t);
            if (exact == null || Math.abs((double) exact) >= EXACT_DOUBLES) return Optional.empty(); // matchTerm compares longs
        }
        if (t.startsWith("[") || t.startsWith("<") || t.startsWith(">")) {
            NumericRange range = NumericRange.parse(t);
            if (range == null) return Optional.empty();
            return rangePostings(range.low(), range.lowInclusive(), range.high(), range.highInclusive());
        }
        double value;
        try { value = Double.parseDouble(t); }
        catch (NumberFormatException e) { return Optional.empty(); }
        return rangePostings(value, true, value, true);
    }

    @Override
    public Optional<List<PostingList>> rangePostings(double low, boolean lowInclusive, double high, boolean highInclusive) {
        if (postings == null) return Optional.empty();
        if (kind == Kind.INT64 && ! (exactAsDouble(low) && exactAsDouble(high))) return Optional.empty(); // matchRange compares longs
        return Optional.of(List.copyOf(postings.subMap(low, lowInclusive, high, highInclusive).values()));
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        if (kind == Kind.INT64) { // as proton: the bounds become the integers they admit, compared as longs
            if (Double.isNaN(low) || Double.isNaN(high)) return;
            if ( ! lowInclusive && Math.floor(low) >= 0x1p63) return;   // nothing above the largest long
            if ( ! highInclusive && Math.ceil(high) <= -0x1p63) return; // nothing below the smallest
            long from = lowInclusive ? (long) Math.ceil(low) : (long) Math.floor(low) + 1; // casts saturate at the long range
            long to = highInclusive ? (long) Math.floor(high) : (long) Math.ceil(high) - 1;
            if (from <= to) matchIntegerRange(from, true, to, true, candidates, result);
            return;
        }
        if (postings != null) {
            for (PostingList ids : postings.subMap(low, lowInclusive, high, highInclusive).values()) {
                if (candidates == null) ids.orInto(result);
                else ids.orInto(result, candidates);
            }
            return;
        }
        BitSet scan = candidates != null ? candidates : present;
        for (int lid = scan.nextSetBit(0); lid >= 0; lid = scan.nextSetBit(lid + 1)) {
            if ( ! present.get(lid)) continue;
            double v = number(lid);
            if ((lowInclusive ? v >= low : v > low) && (highInclusive ? v <= high : v < high)) result.set(lid);
        }
    }

    /** Where doubles stop holding every integer: int64 values at or past it are compared as longs. */
    private static final double EXACT_DOUBLES = 0x1p53;

    /**
     * Adds the local ids whose int64 value is in the range to result, compared as longs (as proton compares them),
     * through the postings of the doubles the bounds round to where this has them.
     */
    public void matchIntegerRange(long low, boolean lowInclusive, long high, boolean highInclusive, BitSet candidates, BitSet result) {
        if (kind != Kind.INT64) throw new IllegalStateException("Attribute '" + name() + "' is not int64");
        if (low > high) return; // an empty range
        if (postings != null) {
            // every long in the range rounds to a double in [round(low), round(high)]
            for (PostingList ids : postings.subMap((double) low, true, (double) high, true).values()) {
                for (int i = 0; i < ids.size(); i++) {
                    int lid = ids.lid(i);
                    if ((candidates == null || candidates.get(lid)) && inRange(longs[lid], low, lowInclusive, high, highInclusive)) result.set(lid);
                }
            }
            return;
        }
        BitSet scan = candidates != null ? candidates : present;
        for (int lid = scan.nextSetBit(0); lid >= 0; lid = scan.nextSetBit(lid + 1))
            if (present.get(lid) && inRange(longs[lid], low, lowInclusive, high, highInclusive)) result.set(lid);
    }

    /** Whether doubles compare like the integers they stand for at this bound: infinite, or below 2^53 in magnitude. */
    private static boolean exactAsDouble(double bound) { return Double.isInfinite(bound) || Math.abs(bound) < EXACT_DOUBLES; }

    private static boolean inRange(long v, long low, boolean lowInclusive, long high, boolean highInclusive) {
        return (lowInclusive ? v >= low : v > low) && (highInclusive ? v <= high : v < high);
    }

    /** The term as a long, if it is an integer literal. */
    private static Long integer(String term) {
        try {
            return Long.parseLong(term);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Whether this has a dictionary of values (attribute: fast-search). */
    public boolean isFastSearch() { return postings != null; }

    /**
     * Adds to result the documents of the first values in the range in value order (highest first when
     * descending) until at least count documents are added: whole values at a time, as Vespa's range search with a
     * hit limit walks its dictionary. Requires fast-search.
     */
    public void addFirstInValueOrder(long count, boolean descending, NumericRange range, BitSet result) {
        if (postings == null) throw new IllegalStateException("Attribute '" + name() + "' is not fast-search");
        NavigableMap<Double, PostingList> values = postings.subMap(range.low(), range.lowInclusive(), range.high(), range.highInclusive());
        long added = 0;
        for (Map.Entry<Double, PostingList> entry : (descending ? values.descendingMap() : values).entrySet()) {
            if (added >= count) break;
            if (entry.getKey().isNaN()) continue;
            entry.getValue().orInto(result);
            added += entry.getValue().size();
        }
    }

    /** The column as it always was on disk (int kinds as longs, float kinds as doubles), whatever its width in memory. */
    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        out.writeByte(kind.ordinal());
        writeBits(out, present);
        int length = Math.min(lidLimit, columnLength());
        out.writeInt(length);
        if (kind == Kind.INT64) { out.writeLongs(longs, 0, length); return; }
        if (kind == Kind.DOUBLE) { out.writeDoubles(doubles, 0, length); return; }
        int chunk = 8192;
        long[] wideLongs = kind == Kind.INT32 ? new long[chunk] : null;
        double[] wideDoubles = kind == Kind.FLOAT ? new double[chunk] : null;
        for (int from = 0; from < length; from += chunk) {
            int n = Math.min(chunk, length - from);
            for (int k = 0; k < n; k++) {
                int lid = from + k;
                boolean set = present.get(lid); // unset values were written as 0 before the undefined value was kept inline
                if (wideLongs != null) wideLongs[k] = set ? ints[lid] : 0;
                else wideDoubles[k] = set ? floats[lid] : 0;
            }
            if (wideLongs != null) out.writeLongs(wideLongs, 0, n);
            else out.writeDoubles(wideDoubles, 0, n);
        }
    }

    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        if (in.readByte() != kind.ordinal()) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': kind changed");
        BitSet bits = readBits(in);
        int length = in.readLength(8);
        if (bits.length() > length) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': values beyond the column");
        allocate(Math.max(16, length));
        switch (kind) {
            case INT64 -> in.readLongs(longs, 0, length);
            case DOUBLE -> in.readDoubles(doubles, 0, length);
            case INT32 -> {
                long[] wide = new long[Math.min(8192, Math.max(1, length))];
                for (int from = 0; from < length; from += wide.length) {
                    int n = Math.min(wide.length, length - from);
                    in.readLongs(wide, 0, n);
                    for (int k = 0; k < n; k++) ints[from + k] = (int) wide[k];
                }
            }
            case FLOAT -> {
                double[] wide = new double[Math.min(8192, Math.max(1, length))];
                for (int from = 0; from < length; from += wide.length) {
                    int n = Math.min(wide.length, length - from);
                    in.readDoubles(wide, 0, n);
                    for (int k = 0; k < n; k++) floats[from + k] = (float) wide[k];
                }
            }
        }
        for (int lid = 0; lid < length; lid++) if ( ! bits.get(lid)) storeUndefined(lid);
        present.or(bits);
        if (postings != null)
            for (int lid = present.nextSetBit(0); lid >= 0; lid = present.nextSetBit(lid + 1))
                postings.computeIfAbsent(number(lid), k -> new PostingList()).add(lid);
    }

    private int columnLength() {
        return switch (kind) {
            case INT32 -> ints.length;
            case INT64 -> longs.length;
            case FLOAT -> floats.length;
            case DOUBLE -> doubles.length;
        };
    }

    /** A column of this length, all undefined. */
    private void allocate(int length) {
        switch (kind) {
            case INT32 -> { ints = new int[length]; Arrays.fill(ints, Integer.MIN_VALUE); }
            case INT64 -> { longs = new long[length]; Arrays.fill(longs, Long.MIN_VALUE); }
            case FLOAT -> { floats = new float[length]; Arrays.fill(floats, Float.NaN); }
            case DOUBLE -> { doubles = new double[length]; Arrays.fill(doubles, Double.NaN); }
        }
    }

    /** Grows the column to hold the local id, new slots undefined. */
    private void ensure(int lid) {
        int length = columnLength();
        if (lid < length) return;
        int grown = grow(length, lid);
        switch (kind) {
            case INT32 -> { ints = Arrays.copyOf(ints, grown); Arrays.fill(ints, length, grown, Integer.MIN_VALUE); }
            case INT64 -> { longs = Arrays.copyOf(longs, grown); Arrays.fill(longs, length, grown, Long.MIN_VALUE); }
            case FLOAT -> { floats = Arrays.copyOf(floats, grown); Arrays.fill(floats, length, grown, Float.NaN); }
            case DOUBLE -> { doubles = Arrays.copyOf(doubles, grown); Arrays.fill(doubles, length, grown, Double.NaN); }
        }
    }

}
