package ai.dwell.runtime.match;

import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** WAND as proton's WeakAndSearch: the threshold rises to the targetHits-th best score, 4 hits at a time. */
public class WeakAndTest {

    @Test
    void documentsBelowTheRisingThresholdAreSkipped() {
        BitSet common = range(1, 101), rare = range(1, 5);
        rare.or(range(90, 100));
        BitSet hits = WeakAnd.match(new BitSet[] { common, rare }, new int[] { 100, 100 }, 4, 101, range(0, 101));
        // lids 1-4 match both and fill the heap: from then on a document must match both terms too
        BitSet expected = range(1, 5);
        expected.or(range(90, 100));
        assertEquals(expected, hits);
    }

    @Test
    void allOfTheOrMatchWhileTheHeapIsNotFull() {
        BitSet a = range(1, 20), b = range(10, 40);
        BitSet or = (BitSet) a.clone();
        or.or(b);
        assertEquals(or, WeakAnd.match(new BitSet[] { a, b }, new int[] { 100, 100 }, 100, 50, range(0, 50)));
    }

    @Test
    void onlyCandidatesAreVisitedAndScored() {
        BitSet common = range(1, 101), rare = range(1, 5);
        BitSet candidates = range(50, 60);
        assertEquals(candidates, WeakAnd.match(new BitSet[] { common, rare }, new int[] { 100, 100 }, 4, 101, candidates));
    }

    @Test
    void targetHitsZeroMatchesNothing() {
        assertEquals(new BitSet(), WeakAnd.match(new BitSet[] { range(1, 5) }, new int[] { 100 }, 0, 10, range(0, 10)));
    }

    @Test
    void idfIsBm25s() {
        assertEquals(Math.log(1 + (100 - 10 + 0.5) / (10 + 0.5)), WeakAnd.idf(10, 100), 1e-12);
        assertEquals(WeakAnd.idf(1, 100), WeakAnd.idf(0, 100), 1e-12);
    }

    private static BitSet range(int from, int to) {
        BitSet bits = new BitSet();
        bits.set(from, to);
        return bits;
    }

}
