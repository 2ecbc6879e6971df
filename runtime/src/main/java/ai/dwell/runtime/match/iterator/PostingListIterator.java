package ai.dwell.runtime.match.iterator;

import ai.dwell.runtime.index.PostingList;

import java.util.BitSet;

/**
 * The ids of a posting list, optionally only those also in an allowed set (such as the active documents:
 * checked per id, cheaper than a conjunction with the set); advance gallops, then binary searches.
 * Neither the list nor the set may change while this walks them.
 */
public final class PostingListIterator extends DocIdIterator {

    private final PostingList postings;
    private final BitSet allowed; // null: all
    private final int size;
    private int index = -1;
    private int doc = -1;

    /** All ids of the list. */
    public PostingListIterator(PostingList postings) { this(postings, null); }

    /** The ids of the list that are in allowed (all when it is null). */
    public PostingListIterator(PostingList postings, BitSet allowed) {
        this.postings = postings;
        this.allowed = allowed;
        this.size = postings.size();
    }

    @Override public int docId() { return doc; }

    @Override
    public int nextDoc() {
        if (doc == NO_MORE_DOCS) return doc;
        return firstAllowedFrom(index + 1);
    }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int from = index + 1;
        if (from >= size || postings.lid(from) >= target) return firstAllowedFrom(from);
        int step = 1, low = from, high = from + 1; // lid(low) < target
        while (high < size && postings.lid(high) < target) {
            low = high;
            step <<= 1;
            high = low + step;
        }
        high = Math.min(high, size);
        while (low + 1 < high) { // lid(low) < target, and lid(high) >= target or high == size
            int middle = (low + high) >>> 1;
            if (postings.lid(middle) < target) low = middle;
            else high = middle;
        }
        return firstAllowedFrom(high);
    }

    @Override
    public void orInto(BitSet result) {
        if (doc == NO_MORE_DOCS) return;
        for (int i = index + 1; i < size; i++) {
            int lid = postings.lid(i);
            if (allowed == null || allowed.get(lid)) result.set(lid);
        }
        index = size;
        doc = NO_MORE_DOCS;
    }

    /** One loop over the list, as matching an article view does for its whole posting list. */
    @Override
    public void addTo(LocalIds ids, BitSet filter) {
        if (doc == NO_MORE_DOCS) return;
        boolean once = allowed == null || allowed == filter; // the usual case: allowed is the active set, and so is the filter
        ids.ensureCapacity(ids.size() + size - index - 1); // at most the rest of the list: one array, not one per doubling
        for (int i = index + 1; i < size; i++) {
            int lid = postings.lid(i);
            if (filter.get(lid) && (once || allowed.get(lid))) ids.add(lid);
        }
        index = size;
        doc = NO_MORE_DOCS;
    }

    private int firstAllowedFrom(int i) {
        while (i < size && allowed != null && ! allowed.get(postings.lid(i))) i++;
        index = i;
        return doc = i < size ? postings.lid(i) : NO_MORE_DOCS;
    }

}
