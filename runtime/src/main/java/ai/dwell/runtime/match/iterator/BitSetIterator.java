package ai.dwell.runtime.match.iterator;

import java.util.BitSet;

/** The set bits of a bit set, as local ids. The bit set must not change while this walks it. */
public final class BitSetIterator extends DocIdIterator {

    private final BitSet bits;
    private int doc = -1;

    public BitSetIterator(BitSet bits) { this.bits = bits; }

    @Override public int docId() { return doc; }

    @Override public int nextDoc() { return advance(doc + 1); }

    @Override
    public int advance(int target) {
        if (doc == NO_MORE_DOCS) return doc;
        int next = bits.nextSetBit(Math.max(target, doc + 1));
        return doc = next < 0 ? NO_MORE_DOCS : next;
    }

    @Override
    public void orInto(BitSet result) {
        if (doc == NO_MORE_DOCS) return;
        if (doc < 0) result.or(bits);
        else for (int lid = bits.nextSetBit(doc + 1); lid >= 0; lid = bits.nextSetBit(lid + 1)) result.set(lid);
        doc = NO_MORE_DOCS;
    }

}
