package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A single-value string attribute, dictionary encoded: each local id holds an ordinal into the dictionary
 * (0 is "unset"). Matching is exact, case-insensitive when the attribute's match mode is uncased (Vespa's
 * default). With fast-search, each distinct (folded) value has a posting bitset.
 */
public final class StringAttribute extends Attribute implements StringMatching {

    private final boolean cased;
    private final List<String> dictionary = new ArrayList<>(List.of(""));
    private double[] hashes = { hash("") }; // per dictionary ordinal: the value as ranking reads it
    private final Map<String, Integer> ordinals = new HashMap<>();
    private int[] ords = new int[0];
    private final Map<String, PostingList> postings;

    public StringAttribute(String name, boolean cased, boolean fastSearch) {
        super(name);
        this.cased = cased;
        this.postings = fastSearch ? new HashMap<>() : null;
    }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        String string = value.toString();
        if (lid >= ords.length) ords = Arrays.copyOf(ords, grow(ords.length, lid));
        ords[lid] = ordinals.computeIfAbsent(string, s -> { dictionary.add(s); addHash(s); return dictionary.size() - 1; });
        if (postings != null) postings.computeIfAbsent(fold(string), k -> new PostingList()).add(lid);
    }

    @Override
    public void clear(int lid) {
        if (lid >= ords.length || ords[lid] == 0) return;
        if (postings != null) {
            String key = fold(dictionary.get(ords[lid]));
            PostingList ids = postings.get(key);
            if (ids != null) {
                ids.remove(lid);
                if (ids.isEmpty()) postings.remove(key);
            }
        }
        ords[lid] = 0;
    }

    /**
     * The value as ranking reads it: as proton, a hash of the string (of "" where none is set), the hash that string
     * literals in ranking expressions get too, so that attribute(name) == "value" compares them.
     */
    @Override
    public double number(int lid) { return hashes[lid < ords.length ? ords[lid] : 0]; }

    /**
     * The hash Vespa gives a string in ranking (searchlib's StringValue, proton's hash2d): xxh3 of its UTF-8 bytes,
     * read as the bits of a double, with the exponent of an infinity or NaN lowered by one.
     */
    public static double hash(String value) {
        return new com.yahoo.searchlib.rankingexpression.evaluation.StringValue(value).asDouble();
    }

    private void addHash(String value) {
        if (hashes.length < dictionary.size()) hashes = Arrays.copyOf(hashes, Math.max(dictionary.size(), 2 * hashes.length));
        hashes[dictionary.size() - 1] = hash(value);
    }

    @Override
    public Object value(int lid) {
        return lid < ords.length && ords[lid] != 0 ? dictionary.get(ords[lid]) : null;
    }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        String key = fold(term);
        if (postings != null) {
            PostingList ids = postings.get(key);
            if (ids == null) return true;
            if (candidates == null) ids.orInto(result);
            else ids.orInto(result, candidates);
            return true;
        }
        int limit = ords.length;
        for (int lid = candidates == null ? 0 : candidates.nextSetBit(0);
             lid >= 0 && lid < limit;
             lid = candidates == null ? lid + 1 : candidates.nextSetBit(lid + 1)) {
            if (ords[lid] != 0 && fold(dictionary.get(ords[lid])).equals(key)) result.set(lid);
        }
        return true;
    }

    @Override
    public void matchValues(java.util.function.Predicate<String> accepts, BitSet candidates, BitSet result) {
        if (postings != null) {
            StringMatching.orPostings(postings, accepts, candidates, result);
            return;
        }
        BitSet accepted = new BitSet(dictionary.size());
        for (int ordinal = 1; ordinal < dictionary.size(); ordinal++)
            if (accepts.test(fold(dictionary.get(ordinal)))) accepted.set(ordinal);
        int limit = ords.length;
        for (int lid = candidates == null ? 0 : candidates.nextSetBit(0);
             lid >= 0 && lid < limit;
             lid = candidates == null ? lid + 1 : candidates.nextSetBit(lid + 1))
            if (ords[lid] != 0 && accepted.get(ords[lid])) result.set(lid);
    }

    @Override
    public Optional<List<PostingList>> termPostings(String term) {
        if (postings == null) return Optional.empty();
        PostingList ids = postings.get(fold(term));
        return Optional.of(ids == null ? List.of() : List.of(ids));
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        throw new IllegalArgumentException("Numeric range on string attribute '" + name() + "' is not supported");
    }

    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        out.writeInt(dictionary.size());
        for (String value : dictionary) out.writeString(value);
        int length = Math.min(lidLimit, ords.length);
        out.writeInt(length);
        out.writeInts(ords, 0, length);
    }

    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        int size = in.readLength(4);
        dictionary.clear();
        ordinals.clear();
        hashes = new double[Math.max(1, size)];
        for (int i = 0; i < size; i++) {
            String value = in.readString();
            dictionary.add(value);
            hashes[i] = hash(value);
            if (i > 0) ordinals.put(value, i);
        }
        int length = in.readLength(4);
        ords = new int[Math.max(16, length)];
        in.readInts(ords, 0, length);
        for (int lid = 0; lid < length; lid++) {
            if (ords[lid] < 0 || ords[lid] >= dictionary.size())
                throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': ordinal out of range");
            if (ords[lid] != 0 && postings != null)
                postings.computeIfAbsent(fold(dictionary.get(ords[lid])), k -> new PostingList()).add(lid);
        }
    }

    @Override
    public boolean isCased() { return cased; }

}
