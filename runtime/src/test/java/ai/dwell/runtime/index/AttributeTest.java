package ai.dwell.runtime.index;

import com.yahoo.document.DocumentId;
import com.yahoo.document.GlobalId;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.ReferenceDataType;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Numeric, string and reference attributes on their own: values, undefined values, term and range matching,
 * postings kept consistent, and memory that grows with the documents, not with their square.
 */
public class AttributeTest {

    private static final NumericRange ALL = NumericRange.parse("[;]");

    @Test
    void numericValuesAndUndefined() {
        NumericAttribute ints = new NumericAttribute("n", NumericAttribute.Kind.INT32, false);
        ints.set(3, new IntegerFieldValue(7));
        assertEquals(7, ints.number(3));
        assertEquals(Integer.MIN_VALUE, ints.number(2), "unset is Vespa's undefined int");
        assertNull(ints.value(2));
        ints.clear(3);
        assertEquals(Integer.MIN_VALUE, ints.number(3));
        NumericAttribute doubles = new NumericAttribute("d", NumericAttribute.Kind.DOUBLE, false);
        assertTrue(Double.isNaN(doubles.number(1)));
        NumericAttribute floats = new NumericAttribute("f", NumericAttribute.Kind.FLOAT, false);
        floats.set(1, new DoubleFieldValue(0.1));
        assertEquals((float) 0.1, floats.number(1), "float attributes store floats");
    }

    /**
     * Every kind in its own width with the undefined value inline: a block read (as ranking reads) equals the reads one
     * by one, through sets, clears, re-sets and growth; and the state, written and read back, is the same column, in
     * the format it always had on disk (ints as longs, floats as doubles: 8 bytes a value).
     */
    @Test
    void columnsReadInBlocksAsOneByOneAndRoundTripTheirState() throws java.io.IOException {
        java.util.Random random = new java.util.Random(5);
        for (NumericAttribute.Kind kind : NumericAttribute.Kind.values()) {
            NumericAttribute attribute = new NumericAttribute("n", kind, random.nextBoolean());
            java.util.Map<Integer, Double> expected = new java.util.HashMap<>();
            for (int step = 0; step < 3000; step++) {
                int lid = random.nextInt(step < 1500 ? 500 : 2000); // grows midway
                if (random.nextInt(4) == 0) { attribute.clear(lid); expected.remove(lid); continue; }
                long value = random.nextInt(2000) - 1000;
                switch (kind) {
                    case INT32 -> attribute.set(lid, new IntegerFieldValue((int) value));
                    case INT64 -> attribute.set(lid, new LongFieldValue(value * 10_000_000_000L));
                    case FLOAT, DOUBLE -> attribute.set(lid, new DoubleFieldValue(value / 3.0));
                }
                expected.put(lid, switch (kind) {
                    case INT32 -> (double) value;
                    case INT64 -> (double) (value * 10_000_000_000L);
                    case FLOAT -> (double) (float) (value / 3.0);
                    case DOUBLE -> value / 3.0;
                });
            }
            int[] lids = java.util.stream.IntStream.range(0, 2100).toArray();
            assertColumn(kind, expected, attribute, lids);

            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            ai.dwell.runtime.format.StateOutput out = new ai.dwell.runtime.format.StateOutput(java.nio.channels.Channels.newChannel(bytes));
            attribute.writeState(out, 2000);
            out.flush();
            byte[] state = bytes.toByteArray();
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(state).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            int bitsAt = 1, words = buffer.getInt(bitsAt), lengthAt = bitsAt + 4 + 8 * words;
            assertEquals(state.length, lengthAt + 4 + 8 * buffer.getInt(lengthAt), kind + ": 8 bytes a value, as before");
            NumericAttribute read = new NumericAttribute("n", kind, true);
            read.readState(new ai.dwell.runtime.format.StateInput(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(state)), state.length), 2000);
            assertColumn(kind, expected, read, lids);
            for (int lid : lids) assertEquals(attribute.value(lid), read.value(lid), kind + " value of " + lid);
        }
    }

    private static void assertColumn(NumericAttribute.Kind kind, java.util.Map<Integer, Double> expected, NumericAttribute attribute, int[] lids) {
        double[] block = new double[lids.length];
        attribute.numbers(lids, lids.length, block);
        double undefined = kind == NumericAttribute.Kind.INT32 ? Integer.MIN_VALUE : kind == NumericAttribute.Kind.INT64 ? Long.MIN_VALUE : Double.NaN;
        for (int lid : lids) {
            double want = expected.getOrDefault(lid, undefined);
            assertEquals(want, attribute.number(lid), kind + " number of " + lid);
            assertEquals(want, block[lid], kind + " block read of " + lid);
            assertEquals(expected.containsKey(lid), attribute.value(lid) != null, kind + " presence of " + lid);
        }
    }

    @Test
    void termsAndRangesMatchTheSameWithAndWithoutFastSearch() {
        for (boolean fastSearch : List.of(false, true)) {
            NumericAttribute attribute = new NumericAttribute("n", NumericAttribute.Kind.INT64, fastSearch);
            for (int lid = 1; lid <= 10; lid++) attribute.set(lid, new IntegerFieldValue(lid * 10));
            assertEquals(bits(3), match(attribute, "30"));
            assertEquals(bits(2, 3, 4), match(attribute, "[20;40]"));
            assertEquals(bits(1, 2), match(attribute, "<30"));
            assertEquals(bits(10), match(attribute, ">90"));
            assertEquals(bits(), match(attribute, "35"));
            assertFalse(attribute.matchTerm("thirty", null, new BitSet()), "not a number");
            assertThrows(IllegalArgumentException.class, () -> attribute.matchTerm("[10;50;2]", null, new BitSet()), "hit limits are refused");
            BitSet candidates = bits(2, 4, 6);
            BitSet result = new BitSet();
            attribute.matchRange(0, true, 50, true, candidates, result);
            assertEquals(bits(2, 4), result, "only candidates");
        }
    }

    @Test
    void aDistinctValuePerDocumentCostsWordsPerDocument() {
        // a timestamp with fast-search, and a reference to one of many authors: a value per document.
        // Postings as a bitset per value, sized to the local ids, cost n * n / 16 bytes: 5.6 GB for 300k.
        int documents = 300_000;
        long before = usedHeap();
        NumericAttribute created = new NumericAttribute("created_at", NumericAttribute.Kind.INT64, true);
        ReferenceAttribute author = new ReferenceAttribute("author_ref", "author");
        ReferenceDataType authorReference = ReferenceDataType.createWithInferredId(new com.yahoo.document.DocumentType("author"));
        for (int lid = 1; lid <= documents; lid++) {
            created.set(lid, new LongFieldValue(1_700_000_000L + lid));
            author.set(lid, new ReferenceFieldValue(authorReference, new DocumentId("id:dwell:author::a" + lid)));
        }
        long megabytes = (usedHeap() - before) >> 20;
        assertTrue(megabytes < 200, "300k documents took " + megabytes + " MB");

        assertEquals(bits(1234), match(created, String.valueOf(1_700_000_000L + 1234)));
        BitSet newest = new BitSet();
        created.addFirstInValueOrder(3, true, ALL, newest);
        assertEquals(bits(documents - 2, documents - 1, documents), newest);
        BitSet referring = new BitSet();
        assertTrue(author.matchTerm("id:dwell:author::a77", null, referring));
        assertEquals(bits(77), referring);
        author.resolveAgainst(gid -> gid.equals(new GlobalId(new DocumentId("id:dwell:author::a77").getGlobalId())) ? 5 : -1);
        assertEquals(5, author.targetLid(77));
        assertEquals(-1, author.targetLid(78));
        author.clear(77);
        assertEquals(-1, author.targetLid(77));
        BitSet none = new BitSet();
        author.matchTerm("id:dwell:author::a77", null, none);
        assertEquals(bits(), none);
    }

    /** An imported attribute read in a block (as ranking reads it) is its reads one by one: undefined where the reference or its target is missing. */
    @Test
    void importedValuesReadInBlocksAsOneByOne() {
        ReferenceAttribute author = new ReferenceAttribute("author_ref", "author");
        ReferenceDataType authorReference = ReferenceDataType.createWithInferredId(new com.yahoo.document.DocumentType("author"));
        NumericAttribute reputation = new NumericAttribute("reputation", NumericAttribute.Kind.FLOAT, false);
        for (int target = 0; target < 10; target++) if (target != 4) reputation.set(target, new DoubleFieldValue(target / 10.0));
        for (int lid = 0; lid < 100; lid++)
            if (lid % 9 != 0) author.set(lid, new ReferenceFieldValue(authorReference, new DocumentId("id:dwell:author::a" + lid % 13)));
        java.util.Map<GlobalId, Integer> targets = new java.util.HashMap<>();
        for (int a = 0; a < 10; a++) targets.put(new GlobalId(new DocumentId("id:dwell:author::a" + a).getGlobalId()), a); // a10..a12: not on this node
        author.resolveAgainst(gid -> targets.getOrDefault(gid, -1));
        ImportedAttribute imported = new ImportedAttribute("author_reputation", author, reputation);
        for (int[] lids : new int[][] { java.util.stream.IntStream.range(0, 100).toArray(), { 1, 2, 3, 5, 6 } }) { // with and without missing targets
            double[] block = new double[lids.length];
            imported.numbers(lids, lids.length, block);
            for (int k = 0; k < lids.length; k++) {
                int lid = lids[k], target = lid % 9 == 0 ? -1 : lid % 13;
                double expected = target < 0 || target >= 10 || target == 4 ? Double.NaN : (float) (target / 10.0);
                assertEquals(expected, imported.number(lid), "number of " + lid);
                assertEquals(expected, block[k], "block read of " + lid);
            }
        }
    }

    private static long usedHeap() {
        System.gc();
        return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }

    @Test
    void fastSearchPostingsFollowRemovesAndReputs() {
        NumericAttribute attribute = new NumericAttribute("n", NumericAttribute.Kind.INT32, true);
        attribute.set(1, new IntegerFieldValue(5));
        attribute.set(2, new IntegerFieldValue(5));
        attribute.set(1, new IntegerFieldValue(6)); // re-put with another value
        attribute.clear(2);
        assertEquals(bits(), match(attribute, "5"));
        assertEquals(bits(1), match(attribute, "6"));
        attribute.set(2, new IntegerFieldValue(6));
        assertEquals(bits(1, 2), match(attribute, "6"));
    }

    @Test
    void firstInValueOrderTakesWholeValues() {
        NumericAttribute attribute = new NumericAttribute("t", NumericAttribute.Kind.INT64, true);
        int[] values = { 0, 10, 20, 20, 30, 40 }; // lid 0 unused
        for (int lid = 1; lid < values.length; lid++) attribute.set(lid, new IntegerFieldValue(values[lid]));
        BitSet newest = new BitSet();
        attribute.addFirstInValueOrder(2, true, ALL, newest);
        assertEquals(bits(4, 5), newest);
        BitSet oldest = new BitSet();
        attribute.addFirstInValueOrder(2, false, ALL, oldest);
        assertEquals(bits(1, 2, 3), oldest, "20 occurs twice: both are taken");
        NumericAttribute floats = new NumericAttribute("f", NumericAttribute.Kind.DOUBLE, true);
        floats.set(1, new DoubleFieldValue(Double.NaN));
        floats.set(2, new DoubleFieldValue(1.0));
        BitSet best = new BitSet();
        floats.addFirstInValueOrder(1, true, ALL, best);
        assertEquals(bits(2), best, "NaN is not a value to order by");
        BitSet newestBelow30 = new BitSet();
        attribute.addFirstInValueOrder(1, true, NumericRange.parse("<30"), newestBelow30);
        assertEquals(bits(2, 3), newestBelow30, "within a range");
    }

    @Test
    void stringMatchingFoldsCaseUnlessCased() {
        for (boolean fastSearch : List.of(false, true)) {
            StringAttribute uncased = new StringAttribute("s", false, fastSearch);
            StringAttribute cased = new StringAttribute("s", true, fastSearch);
            for (StringAttribute attribute : List.of(uncased, cased)) {
                attribute.set(1, new StringFieldValue("Article-A"));
                attribute.set(2, new StringFieldValue("article-a"));
                attribute.set(3, new StringFieldValue("other"));
            }
            assertEquals(bits(1, 2), match(uncased, "ARTICLE-a"));
            assertEquals(bits(1), match(cased, "Article-A"));
            assertEquals(bits(), match(cased, "ARTICLE-A"));
            assertEquals("Article-A", uncased.value(1), "values keep their case");
            uncased.clear(1);
            uncased.set(3, new StringFieldValue("ARTICLE-A"));
            assertEquals(bits(2, 3), match(uncased, "article-a"));
            assertNull(uncased.value(1));
        }
    }

    private static BitSet match(Attribute attribute, String term) {
        BitSet result = new BitSet();
        assertTrue(attribute.matchTerm(term, null, result));
        return result;
    }

    private static BitSet bits(int... lids) {
        BitSet bits = new BitSet();
        for (int lid : lids) bits.set(lid);
        return bits;
    }

}
