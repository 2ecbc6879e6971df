package ai.dwell.runtime.index;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The features of a query's predicate item: "key=value" features and key/number range features, each with the
 * bitmap of the subqueries it belongs to (all 64 where the query gives none, as Vespa's default), hashed once per
 * query so that {@link PredicateProgram#evaluate} looks them up without allocating. A feature given twice belongs to
 * the union of its subqueries.
 */
public final class PredicateAssignment {

    /** A "key=value" feature of the query. */
    public record Feature(String key, String value, long subqueries) {}

    /** A range feature of the query: a key and a number. */
    public record RangeFeature(String key, long value, long subqueries) {}

    private final long[] featureHashes; // open addressing; 0 marks an empty slot (a zero hash is kept aside)
    private final long[] featureBits;
    private long zeroHashBits;
    private final long[] rangeKeys;     // distinct range key hashes
    private final int[] rangeStarts;    // where each key's values start in rangeValues (one past the last at the end)
    private final long[] rangeValues;
    private final long[] rangeBits;
    private final List<RangeFeature> ranges;

    public PredicateAssignment(List<Feature> features, List<RangeFeature> ranges) {
        int capacity = Integer.highestOneBit(Math.max(4, features.size() * 2)) * 2;
        featureHashes = new long[capacity];
        featureBits = new long[capacity];
        for (Feature feature : features) addFeature(PredicateProgram.featureHash(feature.key(), feature.value()), feature.subqueries());

        Map<Long, List<RangeFeature>> byKey = new LinkedHashMap<>();
        for (RangeFeature range : ranges) byKey.computeIfAbsent(PredicateProgram.rangeKeyHash(range.key()), k -> new java.util.ArrayList<>()).add(range);
        rangeKeys = new long[byKey.size()];
        rangeStarts = new int[byKey.size() + 1];
        rangeValues = new long[ranges.size()];
        rangeBits = new long[ranges.size()];
        int k = 0, v = 0;
        for (var entry : byKey.entrySet()) {
            rangeKeys[k] = entry.getKey();
            rangeStarts[k++] = v;
            for (RangeFeature range : entry.getValue()) {
                rangeValues[v] = range.value();
                rangeBits[v++] = range.subqueries();
            }
        }
        rangeStarts[k] = v;
        this.ranges = List.copyOf(ranges);
    }

    /** The range features, as given. */
    public List<RangeFeature> ranges() { return ranges; }

    private void addFeature(long hash, long bits) {
        if (hash == 0) { zeroHashBits |= bits; return; }
        int mask = featureHashes.length - 1;
        for (int slot = (int) (mix(hash) & mask); ; slot = (slot + 1) & mask) {
            if (featureHashes[slot] == 0) { featureHashes[slot] = hash; featureBits[slot] = bits; return; }
            if (featureHashes[slot] == hash) { featureBits[slot] |= bits; return; }
        }
    }

    /** The subqueries holding the feature with this hash (0: none). */
    long featureBits(long hash) {
        if (hash == 0) return zeroHashBits;
        int mask = featureHashes.length - 1;
        for (int slot = (int) (mix(hash) & mask); ; slot = (slot + 1) & mask) {
            if (featureHashes[slot] == hash) return featureBits[slot];
            if (featureHashes[slot] == 0) return 0;
        }
    }

    /** The subqueries holding a value of the range key (by hash) within [from, to]. */
    long rangeBits(long keyHash, long from, long to) {
        long bits = 0;
        for (int k = 0; k < rangeKeys.length; k++) {
            if (rangeKeys[k] != keyHash) continue;
            for (int v = rangeStarts[k]; v < rangeStarts[k + 1]; v++)
                if (rangeValues[v] >= from && rangeValues[v] <= to) bits |= rangeBits[v];
        }
        return bits;
    }

    /** The hashes the postings of the documents that may match are kept under: of the features and the range keys. */
    long[] postingKeys() {
        long[] keys = new long[featureHashes.length + 1 + rangeKeys.length];
        int count = 0;
        for (long hash : featureHashes) if (hash != 0) keys[count++] = hash;
        if (zeroHashBits != 0) keys[count++] = 0;
        for (long key : rangeKeys) keys[count++] = key;
        return Arrays.copyOf(keys, count);
    }

    private static long mix(long hash) { return hash ^ (hash >>> 29) ^ (hash >>> 47); }

}
