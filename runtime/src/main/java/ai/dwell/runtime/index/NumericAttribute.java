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
 * A single-value numeric attribute: int and long values in a long[], float and double in a double[].
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
    private long[] longs = new long[0];
    private double[] doubles = new double[0];
    private final BitSet present = new BitSet();
    private final NavigableMap<Double, PostingList> postings;

    public NumericAttribute(String name, Kind kind, boolean fastSearch) {
        super(name);
        this.kind = kind;
        this.postings = fastSearch ? new TreeMap<>() : null;
    }

    public Kind kind() { return kind; }

    @Override public boolean isNumeric() { return true; }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        if ( ! (value instanceof NumericFieldValue number))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes numbers, got " + value.getDataType().getName());
        ensure(lid);
        if (kind.integral()) longs[lid] = number.getNumber().longValue();
        else doubles[lid] = kind == Kind.FLOAT ? number.getNumber().floatValue() : number.getNumber().doubleValue();
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
    }

    @Override
    public double number(int lid) {
        if ( ! present.get(lid)) return kind.undefined;
        return kind.integral() ? longs[lid] : doubles[lid];
    }

    @Override
    public void numbers(int[] lids, int count, double[] out) {
        double undefined = kind.undefined;
        if (kind.integral()) {
            long[] values = longs;
            for (int k = 0; k < count; k++) {
                int lid = lids[k];
                out[k] = present.get(lid) ? values[lid] : undefined;
            }
        }
        else {
            double[] values = doubles;
            for (int k = 0; k < count; k++) {
                int lid = lids[k];
                out[k] = present.get(lid) ? values[lid] : undefined;
            }
        }
    }

    /** The integral value, for int and long attributes. */
    @Override
    public long longValue(int lid) {
        return present.get(lid) ? longs[lid] : (long) kind.undefined;
    }

    @Override
    public Object value(int lid) {
        if ( ! present.get(lid)) return null;
        return kind.integral() ? (Object) longs[lid] : (Object) doubles[lid];
    }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        String t = term.trim();
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
        return Optional.of(List.copyOf(postings.subMap(low, lowInclusive, high, highInclusive).values()));
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
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

    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        out.writeByte(kind.ordinal());
        writeBits(out, present);
        int length = Math.min(lidLimit, kind.integral() ? longs.length : doubles.length);
        out.writeInt(length);
        if (kind.integral()) out.writeLongs(longs, 0, length);
        else out.writeDoubles(doubles, 0, length);
    }

    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        if (in.readByte() != kind.ordinal()) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': kind changed");
        BitSet bits = readBits(in);
        int length = in.readLength(kind.integral() ? 8 : 8);
        if (bits.length() > length) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': values beyond the column");
        if (kind.integral()) { longs = new long[Math.max(16, length)]; in.readLongs(longs, 0, length); }
        else { doubles = new double[Math.max(16, length)]; in.readDoubles(doubles, 0, length); }
        present.or(bits);
        if (postings != null)
            for (int lid = present.nextSetBit(0); lid >= 0; lid = present.nextSetBit(lid + 1))
                postings.computeIfAbsent(number(lid), k -> new PostingList()).add(lid);
    }

    private void ensure(int lid) {
        if (kind.integral() && lid >= longs.length) longs = Arrays.copyOf(longs, grow(longs.length, lid));
        if ( ! kind.integral() && lid >= doubles.length) doubles = Arrays.copyOf(doubles, grow(doubles.length, lid));
    }

}
