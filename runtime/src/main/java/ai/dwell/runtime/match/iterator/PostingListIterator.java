package ai.dwell.runtime.match.iterator;

import ai.dwell.runtime.index.PostingList;

/** The ids of a posting list; advance gallops, then binary searches. The list must not change while this walks it. */
public final class PostingListIterator extends DocIdIterator {

    private final PostingList postings;
    private final int size;
    private int index = -1;
    private int doc = -1;

    public PostingListIterator(PostingList postings) {
        this.postings = postings;
        this.size = postings.size();
    }

    @Override public int docId() { return doc; }

    @Override
    public int nextDoc() {
        if (doc == NO_MORE_DOCS) return doc;
        return at(index + 1);
    }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int from = index + 1;
        if (from >= size || postings.lid(from) >= target) return at(from);
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
        return at(high);
    }

    private int at(int i) {
        index = i;
        return doc = i < size ? postings.lid(i) : NO_MORE_DOCS;
    }

}
