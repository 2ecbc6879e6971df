package ai.dwell.runtime.match.iterator;

import java.util.function.IntPredicate;

/** The ids of an iterator that also pass a per-document check (e.g. a phrase's positions). */
public final class FilterIterator extends DocIdIterator {

    private final DocIdIterator source;
    private final IntPredicate accepted;
    private int doc = -1;

    public FilterIterator(DocIdIterator source, IntPredicate accepted) {
        this.source = source;
        this.accepted = accepted;
    }

    @Override public int docId() { return doc; }

    @Override public int nextDoc() { return advance(doc + 1); }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int wanted = Math.max(target, doc + 1);
        int candidate = source.docId() >= wanted ? source.docId() : source.advance(wanted);
        while (candidate != NO_MORE_DOCS && ! accepted.test(candidate)) candidate = source.nextDoc();
        return doc = candidate;
    }

}
