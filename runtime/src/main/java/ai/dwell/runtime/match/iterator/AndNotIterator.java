package ai.dwell.runtime.match.iterator;

/** The ids of one iterator that another does not have. */
public final class AndNotIterator extends DocIdIterator {

    private final DocIdIterator included;
    private final DocIdIterator excluded;
    private int doc = -1;

    public AndNotIterator(DocIdIterator included, DocIdIterator excluded) {
        this.included = included;
        this.excluded = excluded;
    }

    @Override public int docId() { return doc; }

    @Override public int nextDoc() { return advance(doc + 1); }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int candidate = included.docId() >= Math.max(target, doc + 1) ? included.docId() : included.advance(Math.max(target, doc + 1));
        while (candidate != NO_MORE_DOCS) {
            int next = excluded.docId() >= candidate ? excluded.docId() : excluded.advance(candidate);
            if (next != candidate) break;
            candidate = included.nextDoc();
        }
        return doc = candidate;
    }

}
