package ai.dwell.runtime.match.iterator;

import java.util.BitSet;
import java.util.List;
import java.util.PriorityQueue;

/** The ids any of its iterators has, each once: a heap of the iterators by their current id. */
public final class DisjunctionIterator extends DocIdIterator {

    private final PriorityQueue<DocIdIterator> heap;
    private final List<DocIdIterator> iterators;
    private int doc = -1;

    public DisjunctionIterator(List<DocIdIterator> iterators) {
        this.iterators = List.copyOf(iterators);
        this.heap = new PriorityQueue<>(Math.max(1, iterators.size()), (a, b) -> Integer.compare(a.docId(), b.docId()));
    }

    @Override public int docId() { return doc; }

    @Override public int nextDoc() { return advance(doc + 1); }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int wanted = Math.max(target, doc + 1);
        if (doc == -1) { // first move: position every iterator
            for (DocIdIterator iterator : iterators)
                if (iterator.advance(wanted) != NO_MORE_DOCS) heap.add(iterator);
        }
        else {
            while ( ! heap.isEmpty() && heap.peek().docId() < wanted) {
                DocIdIterator behind = heap.poll();
                if (behind.advance(wanted) != NO_MORE_DOCS) heap.add(behind);
            }
        }
        return doc = heap.isEmpty() ? NO_MORE_DOCS : heap.peek().docId();
    }

    @Override
    public void orInto(BitSet result) {
        if (doc != -1) { // partly walked: the heap knows where each is
            super.orInto(result);
            return;
        }
        for (DocIdIterator iterator : iterators) iterator.orInto(result);
        doc = NO_MORE_DOCS;
    }

}
