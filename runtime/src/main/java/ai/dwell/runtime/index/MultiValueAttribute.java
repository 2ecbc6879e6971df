package ai.dwell.runtime.index;

import ai.dwell.runtime.format.CorruptStateException;
import ai.dwell.runtime.format.StateInput;
import ai.dwell.runtime.format.StateOutput;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;
import com.yahoo.document.datatypes.WeightedSet;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * An array or weighted-set attribute of strings or numbers ({@code array<string>}, {@code weightedset<long>}, ...):
 * each local id holds its elements (and, in a weighted set, their weights), in the order the document has them.
 * A document matches a term or a range when one of its elements does, as in proton; strings compare as the
 * attribute's match mode does (uncased folds case). With fast-search, each distinct (folded) element has a posting
 * list of the documents that hold it. Integers are held as longs and compared as doubles: exact below 2^53 (a
 * single-value int64 attribute compares as longs, {@link NumericAttribute#matchIntegerRange}).
 *
 * <p>A multi-value attribute is not one value: ranking reads it through {@link #count} (the number of elements),
 * {@link #weight} (a key's weight, 0 when absent) and {@link #contains}, grouping and sorting through {@link #elements};
 * reading it as a single value is refused, naming it.
 */
public final class MultiValueAttribute extends Attribute implements StringMatching {

    public enum Collection { ARRAY, WEIGHTED_SET }

    public enum Elements { STRING, INTEGER, FLOATING }

    private static final Object[] NONE = new Object[0];

    private final Collection collection;
    private final Elements elements;
    private final boolean cased;
    private Object[][] values = new Object[0][]; // per lid: String, Long or Double elements; null when none
    private int[][] weights = new int[0][];      // per lid, weighted sets only
    private final Map<String, PostingList> stringPostings;
    private final NavigableMap<Double, PostingList> numberPostings;

    public MultiValueAttribute(String name, Collection collection, Elements elements, boolean cased, boolean fastSearch) {
        super(name);
        this.collection = collection;
        this.elements = elements;
        this.cased = cased;
        this.stringPostings = fastSearch && elements == Elements.STRING ? new HashMap<>() : null;
        this.numberPostings = fastSearch && elements != Elements.STRING ? new TreeMap<>() : null;
    }

    public Collection collection() { return collection; }

    /** The type of the elements. */
    public Elements elements() { return elements; }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        List<Object> items = new ArrayList<>();
        List<Integer> itemWeights = new ArrayList<>();
        if (value instanceof WeightedSet<?> set) {
            for (Object key : set.keySet()) {
                items.add(element((FieldValue) key));
                itemWeights.add(set.get(key));
            }
        }
        else if (value instanceof Array<?> array) {
            for (Object element : array.getValues()) items.add(element((FieldValue) element));
        }
        else throw new IllegalArgumentException("Attribute '" + name() + "' holds " + collection + " values, not " + value.getDataType().getName());
        if (items.isEmpty()) return;
        ensure(lid);
        values[lid] = items.toArray();
        if (collection == Collection.WEIGHTED_SET) weights[lid] = itemWeights.stream().mapToInt(Integer::intValue).toArray();
        addPostings(lid);
    }

    @Override
    public void clear(int lid) {
        if (lid >= values.length || values[lid] == null) return;
        for (Object element : values[lid]) {
            if (stringPostings != null) removePosting(stringPostings, fold((String) element), lid);
            if (numberPostings != null) removePosting(numberPostings, ((Number) element).doubleValue(), lid);
        }
        values[lid] = null;
        weights[lid] = null;
    }

    /** The number of elements of the document (0 when it has none). */
    public int count(int lid) { return lid < values.length && values[lid] != null ? values[lid].length : 0; }

    /**
     * A key to look documents' elements up by, made once (per query) so that a lookup per document allocates and
     * parses nothing: a string compared as this attribute's match mode compares, or a number (one that does not
     * parse matches nothing).
     */
    public Predicate<Object> key(String key) {
        if (elements == Elements.STRING) {
            if (cased) return key::equals;
            String folded = fold(key);
            // equalsIgnoreCase allocates nothing and accepts every folded match; the few it accepts are then folded
            return item -> ((String) item).equalsIgnoreCase(key) && fold((String) item).equals(folded);
        }
        double number;
        try {
            number = Double.parseDouble(key.trim());
        } catch (NumberFormatException e) {
            return item -> false;
        }
        return item -> ((Number) item).doubleValue() == number;
    }

    /** The weight of the key in the document's weighted set (1 per occurrence in an array), 0 when it does not hold it. */
    public long weight(int lid, Predicate<Object> key) {
        if (lid >= values.length || values[lid] == null) return 0;
        long sum = 0;
        Object[] items = values[lid];
        for (int i = 0; i < items.length; i++)
            if (key.test(items[i])) sum += weights[lid] != null ? weights[lid][i] : 1;
        return sum;
    }

    /**
     * The elements a term matches, as {@link #matchTerm} matches them: strings as this attribute's match mode compares
     * them, numbers equal to a numeric term or within a range term ([a;b], &lt;a, &gt;a). Made once per query: testing an
     * element allocates nothing.
     */
    public Predicate<Object> termMatcher(String term) {
        if (elements == Elements.STRING) return key(term);
        Optional<NumericRange> range = numericTerm(term);
        if (range.isEmpty()) return item -> false;
        NumericRange numbers = range.get();
        return item -> numbers.contains(((Number) item).doubleValue());
    }

    /** The weight of the first of the document's elements, in its order, that the predicate accepts (1 in an array); 0 when none does. */
    public int firstWeight(int lid, Predicate<Object> accepts) {
        if (lid < 0 || lid >= values.length || values[lid] == null) return 0;
        Object[] items = values[lid];
        for (int i = 0; i < items.length; i++)
            if (accepts.test(items[i])) return weights[lid] != null ? weights[lid][i] : 1;
        return 0;
    }

    /** The weight of the document's i-th element: its weight in a weighted set, 1 in an array. */
    public int weightAt(int lid, int i) { return weights[lid] != null ? weights[lid][i] : 1; }

    /** Whether the document holds the key. */
    public boolean contains(int lid, Predicate<Object> key) {
        if (lid >= values.length || values[lid] == null) return false;
        for (Object item : values[lid]) if (key.test(item)) return true;
        return false;
    }

    /** The document's elements (Strings, Longs or Doubles), empty when it has none. */
    public Object[] elements(int lid) { return lid < values.length && values[lid] != null ? values[lid] : NONE; }

    @Override
    public double number(int lid) { throw notOneValue(); }

    @Override
    public long longValue(int lid) { throw notOneValue(); }

    @Override
    public Object value(int lid) { throw notOneValue(); }

    @Override
    public boolean hasNumericValues() { return elements != Elements.STRING; }

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) {
        if (elements == Elements.STRING) {
            matchElements(key(term), candidates, result);
            return true;
        }
        Optional<NumericRange> range = numericTerm(term);
        if (range.isEmpty()) return false;
        matchRange(range.get().low(), range.get().lowInclusive(), range.get().high(), range.get().highInclusive(), candidates, result);
        return true;
    }

    @Override
    public Optional<List<PostingList>> termPostings(String term) {
        if (stringPostings != null) {
            PostingList ids = stringPostings.get(fold(term));
            return Optional.of(ids == null ? List.of() : List.of(ids));
        }
        if (numberPostings == null) return Optional.empty();
        return numericTerm(term).flatMap(r -> rangePostings(r.low(), r.lowInclusive(), r.high(), r.highInclusive()));
    }

    @Override
    public Optional<List<PostingList>> rangePostings(double low, boolean lowInclusive, double high, boolean highInclusive) {
        if (numberPostings == null) return Optional.empty();
        return Optional.of(List.copyOf(numberPostings.subMap(low, lowInclusive, high, highInclusive).values()));
    }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {
        if (elements == Elements.STRING)
            throw new IllegalArgumentException("Numeric range on string attribute '" + name() + "' is not supported");
        matchElements(item -> {
            double v = ((Number) item).doubleValue();
            return (lowInclusive ? v >= low : v > low) && (highInclusive ? v <= high : v < high);
        }, candidates, result);
    }

    @Override
    public void writeState(StateOutput out, int lidLimit) throws IOException {
        int length = Math.min(lidLimit, values.length);
        out.writeInt(length);
        for (int lid = 0; lid < length; lid++) {
            Object[] items = values[lid];
            out.writeInt(items == null ? 0 : items.length);
            if (items == null) continue;
            for (int i = 0; i < items.length; i++) {
                switch (elements) {
                    case STRING -> out.writeString((String) items[i]);
                    case INTEGER -> out.writeLong((Long) items[i]);
                    case FLOATING -> out.writeDouble((Double) items[i]);
                }
                if (collection == Collection.WEIGHTED_SET) out.writeInt(weights[lid][i]);
            }
        }
    }

    @Override
    public void readState(StateInput in, int lidLimit) throws IOException {
        int length = in.readLength(4);
        for (int lid = 0; lid < length; lid++) {
            int count = in.readLength(1);
            if (count == 0) continue;
            ensure(lid);
            Object[] items = new Object[count];
            int[] itemWeights = collection == Collection.WEIGHTED_SET ? new int[count] : null;
            for (int i = 0; i < count; i++) {
                items[i] = switch (elements) {
                    case STRING -> in.readString();
                    case INTEGER -> in.readLong();
                    case FLOATING -> in.readDouble();
                };
                if (itemWeights != null) itemWeights[i] = in.readInt();
            }
            values[lid] = items;
            weights[lid] = itemWeights;
            addPostings(lid);
        }
        if (length > lidLimit) throw new CorruptStateException("Attribute '" + name() + "': " + length + " documents, over the limit " + lidLimit);
    }

    private Object element(FieldValue value) {
        return switch (elements) {
            case STRING -> value.toString();
            case INTEGER -> ((NumericFieldValue) value).getNumber().longValue();
            case FLOATING -> ((NumericFieldValue) value).getNumber().doubleValue();
        };
    }

    private void addPostings(int lid) {
        for (Object element : values[lid]) {
            if (stringPostings != null) stringPostings.computeIfAbsent(fold((String) element), k -> new PostingList()).add(lid);
            if (numberPostings != null) numberPostings.computeIfAbsent(((Number) element).doubleValue(), k -> new PostingList()).add(lid);
        }
    }

    private static <K> void removePosting(Map<K, PostingList> postings, K key, int lid) {
        PostingList ids = postings.get(key);
        if (ids == null) return;
        ids.remove(lid);
        if (ids.isEmpty()) postings.remove(key);
    }

    private void matchElements(Predicate<Object> accepts, BitSet candidates, BitSet result) {
        int limit = values.length;
        for (int lid = candidates == null ? 0 : candidates.nextSetBit(0);
             lid >= 0 && lid < limit;
             lid = candidates == null ? lid + 1 : candidates.nextSetBit(lid + 1)) {
            Object[] items = values[lid];
            if (items == null) continue;
            for (Object item : items) {
                if (accepts.test(item)) {
                    result.set(lid);
                    break;
                }
            }
        }
    }

    /** A numeric term as the range it matches: a number, or [a;b], <a, >a. */
    private static Optional<NumericRange> numericTerm(String term) {
        String t = term.trim();
        if (t.startsWith("[") || t.startsWith("<") || t.startsWith(">")) return Optional.ofNullable(NumericRange.parse(t));
        try {
            double value = Double.parseDouble(t);
            return Optional.of(new NumericRange(value, true, value, true));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private void ensure(int lid) {
        if (lid < values.length) return;
        int size = grow(values.length, lid);
        values = Arrays.copyOf(values, size);
        weights = Arrays.copyOf(weights, size);
    }

    @Override
    public boolean isCased() { return cased; }

    /**
     * Adds to result the candidates (all when null) with an element the test accepts (folded as this attribute's match
     * mode does): of an attribute of strings, each distinct element is tested once.
     */
    @Override
    public void matchValues(Predicate<String> accepts, BitSet candidates, BitSet result) {
        if (elements != Elements.STRING) throw new IllegalArgumentException("'" + name() + "' holds numbers, not strings");
        if (stringPostings != null) {
            StringMatching.orPostings(stringPostings, accepts, candidates, result);
            return;
        }
        Map<String, Boolean> tested = new HashMap<>();
        matchElements(item -> tested.computeIfAbsent((String) item, value -> accepts.test(fold(value))), candidates, result);
    }

    /** The elements (strings) a test of folded values accepts, for the weight of the element a term matched. */
    public Predicate<Object> elementTest(Predicate<String> accepts) {
        return item -> item instanceof String value && accepts.test(fold(value));
    }

    private IllegalArgumentException notOneValue() {
        return new IllegalArgumentException("'" + name() + "' is a multi-value attribute (" + collection.name().toLowerCase(Locale.ROOT) +
                                            "): reading it as one value is not supported by this content engine");
    }

}
