package ai.dwell.runtime.index;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.Random;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Posting lists against a TreeSet over random adds (in and out of order) and removes. */
public class PostingListTest {

    @Test
    void keepsTheIdsSortedAndUniqueUnderAddsAndRemoves() {
        Random random = new Random(7);
        PostingList list = new PostingList();
        TreeSet<Integer> expected = new TreeSet<>();
        int next = 1;
        for (int step = 0; step < 20_000; step++) {
            int choice = random.nextInt(10);
            if (choice < 6) { list.add(next); expected.add(next); next += 1 + random.nextInt(3); }    // mostly increasing
            else if (choice < 8) { int lid = 1 + random.nextInt(next); list.add(lid); expected.add(lid); } // a reused id
            else { int lid = 1 + random.nextInt(next); list.remove(lid); expected.remove(lid); }
        }
        assertEquals(expected.size(), list.size());
        BitSet all = new BitSet();
        list.orInto(all);
        assertEquals(expected.size(), all.cardinality());
        for (int lid : expected) assertTrue(all.get(lid) && list.contains(lid));
        assertFalse(list.contains(next + 1));
    }

    @Test
    void intersectsWithCandidates() {
        PostingList list = new PostingList();
        for (int lid : new int[] { 3, 5, 8, 13, 21 }) list.add(lid);
        BitSet candidates = new BitSet();
        candidates.set(5); candidates.set(6); candidates.set(21); candidates.set(40);

        BitSet ored = new BitSet();
        list.orInto(ored, candidates);
        assertEquals("{5, 21}", ored.toString());

        BitSet retained = (BitSet) candidates.clone();
        list.retainIn(retained);
        assertEquals("{5, 21}", retained.toString());

        list.remove(5);
        list.remove(99); // not there: nothing changes
        assertEquals(4, list.size());
        assertFalse(list.contains(5));
    }

}
