package ai.dwell.runtime.match;

import ai.dwell.runtime.engine.query.ProtobufQueryTree;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.PhraseItem;
import com.yahoo.prelude.query.RankItem;
import com.yahoo.prelude.query.WeakAndItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Matching against one comment index built through dwell's indexing scripts: text terms and their
 * positions, phrases, attribute terms and ranges, boolean items, and an index kept consistent over
 * removes and re-puts.
 */
public class QueryMatcherTest {

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private DocumentIndex index;
    private DocumentType type;

    @BeforeEach
    void setUp() {
        if (cluster == null) {
            cluster = DwellPackage.cluster();
            indexing = DwellPackage.indexing(cluster);
        }
        type = indexing.documentTypes().getDocumentType("comment");
        index = new DocumentIndex(cluster.schema("comment"), indexing.documentTypes());
        index.importFrom(Map.of("comment", index, "author",
                                new DocumentIndex(cluster.schema("author"), indexing.documentTypes())));
        put("c1", "A1", "The quick brown fox jumps over the lazy dog", 3);
        put("c2", "a1", "brown quick fox", 10);
        put("c3", "a2", "A lazy dog sleeps", 0);
    }

    @Test
    void textTermsHavePositionsAndLengths() {
        TextIndex text = index.index("text").orElseThrow();
        int c1 = lid("c1");
        assertArrayEquals(new int[] { 0, 6 }, text.postings("the").positions(c1));
        assertArrayEquals(new int[] { 2 }, text.postings("BROWN").positions(c1), "terms are lowercased");
        assertEquals(9, text.fieldLength(c1));
        assertEquals((9 + 3 + 4) / 3.0, text.averageFieldLength(), 1e-9);
        assertEquals(3, text.documentCount());
    }

    @Test
    void phrasesNeedAdjacentPositionsInOrder() {
        assertEquals(List.of("c1"), matches(phrase("quick", "brown")));
        assertEquals(List.of("c2"), matches(phrase("brown", "quick")));
        assertEquals(List.of("c1", "c3"), matches(phrase("lazy", "dog")));
        assertEquals(List.of(), matches(phrase("fox", "quick")));
    }

    @Test
    void attributeTermsFoldCaseAndNumbersMatchRanges() {
        assertEquals(List.of("c1", "c2"), matches(new WordItem("a1", "article_id")));
        assertEquals(List.of("c1", "c2"), matches(new IntItem("[1;10]", "upvotes")));
        assertEquals(List.of("c2"), matches(new IntItem(">3", "upvotes")));
        assertEquals(List.of("c3"), matches(new IntItem("0", "upvotes")));
    }

    @Test
    void booleanItems() {
        AndItem and = new AndItem();
        and.addItem(new WordItem("a1", "article_id"));
        and.addItem(new WordItem("fox", "default"));
        assertEquals(List.of("c1", "c2"), matches(and));
        NotItem not = new NotItem();
        not.addPositiveItem(new WordItem("dog", "text"));
        not.addNegativeItem(new WordItem("a2", "article_id"));
        assertEquals(List.of("c1"), matches(not));
        RankItem rank = new RankItem();
        rank.addItem(new WordItem("a2", "article_id"));
        rank.addItem(new WordItem("fox", "text"));
        MatchResult result = QueryMatcher.match(index, tree(rank));
        assertEquals(1, result.hitCount(), "only the first child of RANK decides matching");
        assertEquals(List.of(new QueryTerm("article_id", "a2", 100), new QueryTerm("text", "fox", 100)), result.terms(),
                     "all are ranked terms, the attribute's as the query has it (for attributeMatch)");
    }

    @Test
    void matchingWithinSomeDocumentsGivesWhatMatchingAllGivesForThem() {
        for (int i = 0; i < 6; i++) put("w" + i, i % 2 == 0 ? "a1" : "a4", i % 3 == 0 ? "quick fox" : "lazy dog", i);
        AndItem and = new AndItem();
        and.addItem(new WordItem("a1", "article_id"));
        and.addItem(new WordItem("fox", "default"));
        NotItem not = new NotItem();
        not.addPositiveItem(new WordItem("dog", "text"));
        not.addNegativeItem(new WordItem("a4", "article_id"));
        OrItem or = new OrItem();
        or.addItem(phrase("quick", "fox"));
        or.addItem(new IntItem("[2;4]", "upvotes"));
        List<Item> queries = List.of(new WordItem("a1", "article_id"), and, not, or, new IntItem(">3", "upvotes"));
        java.util.Random random = new java.util.Random(7);
        for (Item query : queries) {
            MatchResult all = QueryMatcher.match(index, tree(query));
            for (int round = 0; round < 5; round++) {
                BitSet within = new BitSet();
                for (int lid = 0; lid < index.lidLimit(); lid++) if (random.nextBoolean()) within.set(lid);
                within.set(index.lidLimit() + 3); // beyond the index: no document
                MatchResult some = QueryMatcher.matchWithin(index, tree(query), ai.dwell.runtime.match.QueryContext.NONE, within);
                BitSet expected = (BitSet) all.hits().clone();
                expected.and(within);
                assertEquals(expected, some.hits(), query + " within " + within);
                assertEquals(all.terms(), some.terms(), query + ": the same ranked terms");
            }
        }
    }

    @Test
    void matchingWithinSomeDocumentsMatchesAllWhereHitsDependOnOthers() {
        for (int i = 0; i < 4; i++) put("x" + i, "a8", "alpha beta", 0);
        WeakAndItem weakAnd = new WeakAndItem(2);
        weakAnd.addItem(new WordItem("alpha", "text"));
        weakAnd.addItem(new WordItem("beta", "text"));
        BitSet one = new BitSet();
        one.set(lid("x3"));
        assertEquals(QueryMatcher.match(index, tree(weakAnd)).hits(),
                     QueryMatcher.matchWithin(index, tree(weakAnd), ai.dwell.runtime.match.QueryContext.NONE, one).hits(),
                     "weakAnd's heap is over all documents: matched as a search would");
    }

    @Test
    void removesAndReputsKeepTheIndexConsistent() {
        int c1 = lid("c1");
        assertEquals(true, index.remove(new DocumentId("id:dwell:comment::c1")));
        TextIndex text = index.index("text").orElseThrow();
        assertNull(text.postings("jumps"), "a term only the removed document had is gone");
        assertEquals(2, text.documentCount());
        assertEquals((3 + 4) / 2.0, text.averageFieldLength(), 1e-9);
        assertEquals(List.of("c2"), matches(new WordItem("a1", "article_id")));
        assertEquals(List.of(), matches(new IntItem("3", "upvotes")));

        put("c4", "a3", "jumps again", 3);
        assertEquals(c1, lid("c4"), "the freed local id is reused");
        assertEquals(List.of("c4"), matches(new WordItem("jumps", "text")));
        assertEquals(List.of(), matches(new WordItem("over", "text")), "nothing of c1 remains under its old local id");
        assertEquals(List.of("c4"), matches(new IntItem("3", "upvotes")));

        put("c2", "a3", "a slow fox", 1); // re-put of an existing document: same local id, new content
        assertEquals(List.of("c2", "c4"), matches(new WordItem("a3", "article_id")));
        assertEquals(List.of(), matches(new WordItem("quick", "text")));
        assertEquals(List.of("c2"), matches(new WordItem("fox", "text")));
        assertEquals(3, text.documentCount());
        assertEquals((3 + 4 + 2) / 3.0, text.averageFieldLength(), 1e-9);
    }

    @Test
    void weakAndScoresOnlyWhatTheRestOfTheQueryAllows() {
        for (int i = 0; i < 4; i++) put("x" + i, "a8", "alpha beta", 0); // would fill a heap of 4 with the best score
        for (int i = 0; i < 4; i++) put("y" + i, "a9", "alpha gamma", 0);
        WeakAndItem weakAnd = new WeakAndItem(4);
        weakAnd.addItem(new WordItem("alpha", "text"));
        weakAnd.addItem(new WordItem("beta", "text"));
        AndItem and = new AndItem();
        and.addItem(weakAnd);
        and.addItem(new WordItem("a9", "article_id"));
        assertEquals(List.of("y0", "y1", "y2", "y3"), matches(and));
        NotItem not = new NotItem();
        not.addPositiveItem(weakAnd);
        not.addNegativeItem(new WordItem("a8", "article_id"));
        assertEquals(List.of("y0", "y1", "y2", "y3"), matches(not));
        assertEquals(List.of("x0", "x1", "x2", "x3"), matches(weakAnd), "alone, the first four fill the heap and the rest score too low");
    }

    @Test
    void unsupportedItemsAreErrors() {
        assertThrows(UnsupportedQueryException.class, () -> matches(textSuffix("ox")));
    }

    @Test
    void unsupportedItemsFailWithAMessageNamingThem() {
        assertEquals("Query item suffix_term is not supported by this content engine",
                     assertThrows(UnsupportedQueryException.class, () -> matches(textSuffix("ox"))).getMessage());
    }

    @Test
    void aTermOnAFieldThisTypeDoesNotHaveMatchesNothing() {
        // a query over all types (e.g. ?query=x on the default index) reaches types without that field:
        // proton resolves the term to no field there and matches nothing (blueprintbuilder.cpp), no error
        assertEquals(List.of(), matches(new WordItem("fox", "no_such_field")));
        OrItem or = new OrItem();
        or.addItem(new WordItem("fox", "no_such_field"));
        or.addItem(new WordItem("a2", "article_id"));
        assertEquals(List.of("c3"), matches(or));
    }

    @Test
    void aTextWithoutWordsIsIndexedWithNoTerms() {
        // linguistics annotates no term in "..." (no span tree at all): proton indexes such a field empty
        put("c4", "a3", "...", 1);
        put("c5", "a3", "", 2);
        assertEquals(List.of("c4", "c5"), matches(new WordItem("a3", "article_id")));
        assertEquals(0, index.index("text").orElseThrow().fieldLength(lid("c4")));
        assertEquals(List.of("c1", "c2"), matches(new WordItem("quick", "text")));
    }

    private void put(String id, String article, String text, int upvotes) {
        Document comment = new Document(type, new DocumentId("id:dwell:comment::" + id));
        comment.setFieldValue("comment_id", new StringFieldValue(id));
        comment.setFieldValue("article_id", new StringFieldValue(article));
        comment.setFieldValue("text", new StringFieldValue(text));
        comment.setFieldValue("upvotes", new IntegerFieldValue(upvotes));
        index.put(indexing.process(comment));
    }

    private int lid(String id) { return index.localId(DocumentIndex.globalId(new DocumentId("id:dwell:comment::" + id))); }

    private List<String> matches(Item root) {
        BitSet activeBefore = (BitSet) index.active().clone();
        MatchResult result = QueryMatcher.match(index, tree(root));
        assertEquals(activeBefore, index.active(), "matching reads the index's active documents, and never changes them");
        List<String> ids = new ArrayList<>();
        for (int lid = result.hits().nextSetBit(0); lid >= 0; lid = result.hits().nextSetBit(lid + 1))
            ids.add(index.document(lid).getId().getScheme().getNamespaceSpecific());
        return ids.stream().sorted().toList();
    }

    private static QueryItem tree(Item root) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(root);
        return ProtobufQueryTree.translate(DwellPackage.request(query, 10).getQueryTree());
    }

    private static PhraseItem phrase(String... words) {
        PhraseItem phrase = new PhraseItem();
        phrase.setIndexName("text");
        for (String word : words) phrase.addItem(new WordItem(word, "text"));
        return phrase;
    }

    /** A suffix term on the text field: an item this content engine refuses by name. */
    private static com.yahoo.prelude.query.SuffixItem textSuffix(String suffix) {
        com.yahoo.prelude.query.SuffixItem item = new com.yahoo.prelude.query.SuffixItem(suffix);
        item.setIndexName("text");
        return item;
    }

}
