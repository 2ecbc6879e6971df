package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;

/**
 * A column of one field's values, indexed by local document id: one value per document, or several ({@link MultiValueAttribute}).
 * Reads of numbers go straight to primitive arrays; writes happen under the owning index's write lock.
 */
public abstract class Attribute {

    private final String name;

    protected Attribute(String name) { this.name = name; }

    public String name() { return name; }

    /** Sets the value for a local id (null clears it to the undefined value). */
    public abstract void set(int lid, FieldValue value);

    /** Clears the value of a removed document. */
    public abstract void clear(int lid);

    /** The value as a number for ranking: Vespa's undefined value where none is set (NaN for floating point). */
    public abstract double number(int lid);

    /** The values of the first count local ids as numbers for ranking, into out (as {@link #number} each). */
    public void numbers(int[] lids, int count, double[] out) {
        for (int k = 0; k < count; k++) out[k] = number(lids[k]);
    }

    /** The value as an integer (for int and long attributes exact): Vespa's undefined value where none is set. */
    public long longValue(int lid) { return (long) number(lid); }

    /** The value as it goes into a summary or a sort: a Long, Double, String, Tensor, or null when unset. */
    public abstract Object value(int lid);

    /**
     * Adds the local ids whose value equals the term (as this attribute's match settings compare) to the result.
     * Returns false if the term cannot be compared with this attribute's values.
     */
    public abstract boolean matchTerm(String term, BitSet candidates, BitSet result);

    /**
     * The posting lists of the local ids whose value equals the term (as {@link #matchTerm} compares), where this
     * attribute keeps posting lists (fast-search); empty where it keeps none or the term can not be compared with
     * its values: then use matchTerm. The lists are live: read them under the owning index's read lock.
     */
    public Optional<List<PostingList>> termPostings(String term) { return Optional.empty(); }

    /** The posting lists of the local ids whose numeric value is in the range, where this attribute keeps them; else empty. */
    public Optional<List<PostingList>> rangePostings(double low, boolean lowInclusive, double high, boolean highInclusive) {
        return Optional.empty();
    }

    /** Adds the local ids whose numeric value is in the range to result. */
    public abstract void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result);

    /** Whether this is a numeric attribute (int, long, float, double). */
    public boolean isNumeric() { return false; }

    /** Whether this holds numbers, one or several per document, so that numeric ranges apply to it. */
    public boolean hasNumericValues() { return isNumeric(); }

    /** Writes the values of the local ids below lidLimit, for {@link #readState} to restore (flushed index state). */
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        throw new UnsupportedOperationException("Attribute '" + name + "' is not persisted");
    }

    /** Restores what {@link #writeState} wrote into this empty attribute. */
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        throw new UnsupportedOperationException("Attribute '" + name + "' is not persisted");
    }

    /** Writes a bit set as its words. */
    static void writeBits(ai.dwell.runtime.format.StateOutput out, BitSet bits) throws java.io.IOException {
        long[] words = bits.toLongArray();
        out.writeInt(words.length);
        out.writeLongs(words, 0, words.length);
    }

    /** Reads a bit set written by {@link #writeBits}. */
    static BitSet readBits(ai.dwell.runtime.format.StateInput in) throws java.io.IOException {
        long[] words = new long[in.readLength(8)];
        in.readLongs(words, 0, words.length);
        return BitSet.valueOf(words);
    }

    /** Grows storage to hold this many local ids. */
    protected static int grow(int length, int needed) {
        int size = Math.max(16, length);
        while (size <= needed) size *= 2;
        return size;
    }

}
