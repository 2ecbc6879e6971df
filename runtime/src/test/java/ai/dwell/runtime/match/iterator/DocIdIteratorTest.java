package ai.dwell.runtime.match.iterator;

import ai.dwell.runtime.index.PostingLists;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static ai.dwell.runtime.match.iterator.DocIdIterator.NO_MORE_DOCS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The iterators matching is built from: nextDoc and advance on posting lists and bit sets, and conjunction,
 * disjunction, and-not and filters over them, each against the BitSet operation it stands for, over random sets.
 */
public class DocIdIteratorTest {

    @Test
    void postingListAdvanceMovesToTheFirstIdAtOrAfterTheTargetAndNeverBack() {
        DocIdIterator iterator = new PostingListIterator(PostingLists.of(1, 3, 5, 7, 100));
        assertEquals(-1, iterator.docId());
        assertEquals(3, iterator.advance(3));
        assertEquals(3, iterator.docId());
        assertEquals(5, iterator.advance(3), "a target at or before the current id moves to the next id");
        assertEquals(7, iterator.nextDoc());
        assertEquals(100, iterator.advance(8));
        assertEquals(NO_MORE_DOCS, iterator.nextDoc());
        assertEquals(NO_MORE_DOCS, iterator.advance(5));
        assertEquals(NO_MORE_DOCS, iterator.docId());
    }

    @Test
    void bitSetAdvanceMovesToTheFirstIdAtOrAfterTheTargetAndNeverBack() {
        DocIdIterator iterator = new BitSetIterator(set(0, 4, 9));
        assertEquals(0, iterator.nextDoc());
        assertEquals(4, iterator.advance(0));
        assertEquals(9, iterator.advance(5));
        assertEquals(NO_MORE_DOCS, iterator.advance(10));
        assertEquals(NO_MORE_DOCS, iterator.nextDoc());
    }

    @Test
    void emptyIteratorsAndCombinationsOfNone() {
        assertEquals(NO_MORE_DOCS, DocIdIterator.empty().nextDoc());
        assertEquals(NO_MORE_DOCS, new PostingListIterator(PostingLists.of()).advance(0));
        assertEquals(NO_MORE_DOCS, new ConjunctionIterator(List.of()).nextDoc());
        assertEquals(NO_MORE_DOCS, new DisjunctionIterator(List.of()).nextDoc());
    }

    @Test
    void conjunctionOfPostingListAndBitSetIsBitSetAnd() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), b = random(random);
            BitSet expected = (BitSet) a.clone();
            expected.and(b);
            assertSame(expected, () -> new ConjunctionIterator(List.of(postings(a), new BitSetIterator(b))), random);
        }
    }

    @Test
    void postingListAmongAllowedIdsIsBitSetAnd() {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), allowed = random(random);
            BitSet expected = (BitSet) a.clone();
            expected.and(allowed);
            assertSame(expected, () -> new PostingListIterator(PostingLists.of(a.stream().toArray()), allowed), random);
            LocalIds added = new LocalIds(4); // filtered by the same set it is allowed by, as matching does
            new PostingListIterator(PostingLists.of(a.stream().toArray()), allowed).addTo(added, allowed);
            assertArrayEquals(expected.stream().toArray(), Arrays.copyOf(added.array(), added.size()));
            assertSame(expected, () -> new DisjunctionIterator(List.of(new PostingListIterator(PostingLists.of(a.stream().toArray()), allowed),
                                                                       DocIdIterator.empty())), random);
        }
    }

    @Test
    void conjunctionOfThreeIsTheirIntersection() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), b = random(random), c = random(random);
            BitSet expected = (BitSet) a.clone();
            expected.and(b);
            expected.and(c);
            assertSame(expected, () -> new ConjunctionIterator(List.of(postings(a), postings(b), new BitSetIterator(c))), random);
        }
    }

    @Test
    void disjunctionIsBitSetOr() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), b = random(random), c = random(random);
            BitSet expected = (BitSet) a.clone();
            expected.or(b);
            expected.or(c);
            assertSame(expected, () -> new DisjunctionIterator(List.of(postings(a), new BitSetIterator(b), postings(c))), random);
        }
    }

    @Test
    void andNotIsBitSetAndNot() {
        Random random = new Random(13);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), b = random(random);
            BitSet expected = (BitSet) a.clone();
            expected.andNot(b);
            assertSame(expected, () -> new AndNotIterator(postings(a), postings(b)), random);
        }
    }

    @Test
    void filterKeepsTheIdsThatPass() {
        Random random = new Random(17);
        for (int round = 0; round < 100; round++) {
            BitSet a = random(random);
            BitSet expected = new BitSet();
            a.stream().filter(lid -> lid % 3 == 0).forEach(expected::set);
            assertSame(expected, () -> new FilterIterator(postings(a), lid -> lid % 3 == 0), random);
        }
    }

    @Test
    void nestedCombinationsMatchTheirBitSetExpression() {
        Random random = new Random(19);
        for (int round = 0; round < 200; round++) {
            BitSet a = random(random), b = random(random), c = random(random), d = random(random);
            BitSet expected = (BitSet) b.clone(); // a AND (b OR c) AND NOT d
            expected.or(c);
            expected.and(a);
            expected.andNot(d);
            assertSame(expected, () -> new AndNotIterator(new ConjunctionIterator(List.of(postings(a), new DisjunctionIterator(List.of(postings(b), new BitSetIterator(c))))),
                                                          postings(d)), random);
        }
    }

    /** Walked to the end with nextDoc, collected with orInto, and skipped through with random advances, the iterator gives the expected ids. */
    private static void assertSame(BitSet expected, Supplier<DocIdIterator> iterators, Random random) {
        BitSet walked = new BitSet();
        DocIdIterator iterator = iterators.get();
        for (int doc = iterator.nextDoc(); doc != NO_MORE_DOCS; doc = iterator.nextDoc()) walked.set(doc);
        assertEquals(expected, walked);
        assertEquals(expected, iterators.get().toBitSet());
        BitSet filter = random(random);
        LocalIds added = new LocalIds(1);
        DocIdIterator collecting = iterators.get();
        int taken = collecting.nextDoc(); // addTo adds what remains
        collecting.addTo(added, filter);
        BitSet remaining = (BitSet) expected.clone();
        if (taken != NO_MORE_DOCS) remaining.clear(taken);
        remaining.and(filter);
        assertArrayEquals(remaining.stream().toArray(), Arrays.copyOf(added.array(), added.size()), "addTo");
        assertEquals(NO_MORE_DOCS, collecting.nextDoc(), "exhausted by addTo");
        DocIdIterator skipping = iterators.get();
        int doc = -1;
        while (doc != NO_MORE_DOCS) {
            int target = doc + 1 + random.nextInt(20) - 5; // sometimes a target behind the current id
            int wanted = expected.nextSetBit(Math.max(target, doc + 1));
            doc = skipping.advance(target);
            assertEquals(wanted < 0 ? NO_MORE_DOCS : wanted, doc, "advance(" + target + ")");
            assertEquals(doc, skipping.docId());
        }
    }

    private static DocIdIterator postings(BitSet set) {
        return new PostingListIterator(PostingLists.of(set.stream().toArray()));
    }

    private static BitSet random(Random random) {
        BitSet set = new BitSet();
        int size = 1 + random.nextInt(300);
        double density = random.nextDouble() * random.nextDouble();
        for (int lid = 0; lid < size; lid++) if (random.nextDouble() < density) set.set(lid);
        return set;
    }

    private static BitSet set(int... lids) {
        BitSet set = new BitSet();
        for (int lid : lids) set.set(lid);
        return set;
    }

}
