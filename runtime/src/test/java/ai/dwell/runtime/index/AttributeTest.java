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
