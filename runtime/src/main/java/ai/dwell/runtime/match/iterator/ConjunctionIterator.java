package ai.dwell.runtime.match.iterator;

import java.util.List;

/** The ids all of its iterators have (none when it has none): each skips ahead to the largest id of the others. */
public final class ConjunctionIterator extends DocIdIterator {

    private final DocIdIterator[] iterators;
    private int doc = -1;

    public ConjunctionIterator(List<DocIdIterator> iterators) {
        this.iterators = iterators.toArray(DocIdIterator[]::new);
    }

    @Override public int docId() { return doc; }

    @Override public int nextDoc() { return advance(doc + 1); }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        if (iterators.length == 0) return doc = NO_MORE_DOCS;
        int candidate = Math.max(target, doc + 1);
        for (int i = 0; i < iterators.length; ) {
            int at = iterators[i].docId() >= candidate ? iterators[i].docId() : iterators[i].advance(candidate);
            if (at == NO_MORE_DOCS) return doc = NO_MORE_DOCS;
            if (at > candidate) { // start over: every iterator must reach the new candidate
                candidate = at;
                i = 0;
                continue;
            }
            i++;
        }
        return doc = candidate;
    }

}
