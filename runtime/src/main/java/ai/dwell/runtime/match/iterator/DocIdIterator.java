package ai.dwell.runtime.match.iterator;

import java.util.BitSet;

/**
 * Walks the local ids a part of a query matches, in increasing order, and can skip ahead: the matching
 * primitive of the content engine (as Lucene's DocIdSetIterator). A fresh iterator is before its first id
 * ({@link #docId()} is -1); {@link #nextDoc()} and {@link #advance(int)} move it forward and return where
 * it is, {@link #NO_MORE_DOCS} once it is exhausted.
 */
public abstract class DocIdIterator {

    /** The id of an exhausted iterator: larger than every local id. */
    public static final int NO_MORE_DOCS = Integer.MAX_VALUE;

    /** The current id: -1 before the first call, NO_MORE_DOCS when exhausted. */
    public abstract int docId();

    /** Moves to the next id and returns it. */
    public abstract int nextDoc();

    /** Moves to the first id at or after target (never backwards: at least the next id) and returns it. */
    public abstract int advance(int target);

    /** Sets the bit of every remaining id in the result, exhausting this. */
    public void orInto(BitSet result) {
        for (int doc = nextDoc(); doc != NO_MORE_DOCS; doc = nextDoc()) result.set(doc);
    }

    /** Adds every remaining id that is also in the filter to ids, in increasing order, exhausting this. */
    public void addTo(LocalIds ids, BitSet filter) {
        for (int doc = nextDoc(); doc != NO_MORE_DOCS; doc = nextDoc())
            if (filter.get(doc)) ids.add(doc);
    }

    /** The remaining ids as a new bit set, exhausting this. */
    public BitSet toBitSet() {
        BitSet result = new BitSet();
        orInto(result);
        return result;
    }

    /** An iterator over no ids. */
    public static DocIdIterator empty() { return new BitSetIterator(new BitSet()); }

}
