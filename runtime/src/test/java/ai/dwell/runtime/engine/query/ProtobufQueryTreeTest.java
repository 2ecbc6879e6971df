package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.match.query.QueryItem;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol.QueryTreeItem;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The protobuf query tree, item by item, as the engine's query model; unsupported items kept with the message matching fails with. */
public class ProtobufQueryTreeTest {

    @Test
    void aTreeWithoutRootMatchesEverything() {
        assertEquals(new QueryItem.True(), ProtobufQueryTree.translate(SearchProtocol.QueryTree.getDefaultInstance()));
    }

    @Test
    void trueAndFalse() {
        assertEquals(new QueryItem.True(), translate(QueryTreeItem.newBuilder().setItemTrue(SearchProtocol.ItemTrue.getDefaultInstance())));
        assertEquals(new QueryItem.False(), translate(QueryTreeItem.newBuilder().setItemFalse(SearchProtocol.ItemFalse.getDefaultInstance())));
    }

    @Test
    void booleanItemsKeepTheirChildrenInOrder() {
        List<QueryTreeItem> children = List.of(word("text", "a"), word("text", "b"));
        List<QueryItem> expected = List.of(term("text", "a"), term("text", "b"));
        assertEquals(new QueryItem.And(expected), translate(QueryTreeItem.newBuilder().setItemAnd(SearchProtocol.ItemAnd.newBuilder().addAllChildren(children))));
        assertEquals(new QueryItem.Or(expected), translate(QueryTreeItem.newBuilder().setItemOr(SearchProtocol.ItemOr.newBuilder().addAllChildren(children))));
        assertEquals(new QueryItem.AndNot(expected), translate(QueryTreeItem.newBuilder().setItemAndNot(SearchProtocol.ItemAndNot.newBuilder().addAllChildren(children))));
        assertEquals(new QueryItem.Rank(expected), translate(QueryTreeItem.newBuilder().setItemRank(SearchProtocol.ItemRank.newBuilder().addAllChildren(children))));
        assertEquals(new QueryItem.WeakAnd(expected, 7),
                     translate(QueryTreeItem.newBuilder().setItemWeakAnd(SearchProtocol.ItemWeakAnd.newBuilder().addAllChildren(children).setTargetNumHits(7))));
    }

    @Test
    void termsWithTheirTypeWeightAndRanking() {
        assertEquals(new QueryItem.Term("text", "Fox", QueryItem.TermType.WORD, 100, true), translate(word("text", "Fox")));
        assertEquals(new QueryItem.Term("text", "fox", QueryItem.TermType.WORD, 250, false),
                     translate(QueryTreeItem.newBuilder().setItemWordTerm(SearchProtocol.ItemWordTerm.newBuilder().setWord("fox")
                             .setProperties(properties("text").setItemWeight(250).setDoNotRank(true)))));
        assertEquals(new QueryItem.Term("id", "A b", QueryItem.TermType.EXACT_STRING, 100, true),
                     translate(QueryTreeItem.newBuilder().setItemExactstringTerm(SearchProtocol.ItemExactStringTerm.newBuilder().setWord("A b").setProperties(properties("id")))));
        assertEquals(new QueryItem.Term("upvotes", "-3", QueryItem.TermType.INTEGER, 100, true),
                     translate(QueryTreeItem.newBuilder().setItemIntegerTerm(SearchProtocol.ItemIntegerTerm.newBuilder().setNumber(-3).setProperties(properties("upvotes")))));
        assertEquals(new QueryItem.Term("score", "1.5", QueryItem.TermType.FLOATING_POINT, 100, true),
                     translate(QueryTreeItem.newBuilder().setItemFloatingPointTerm(SearchProtocol.ItemFloatingPointTerm.newBuilder().setNumber(1.5).setProperties(properties("score")))));
    }

    @Test
    void ranges() {
        assertEquals(new QueryItem.Range("upvotes", 3, true, 10, false, new QueryItem.IntegerBounds(3, true, 10, false)),
                     translate(QueryTreeItem.newBuilder().setItemIntegerRangeTerm(SearchProtocol.ItemIntegerRangeTerm.newBuilder().setProperties(properties("upvotes"))
                             .setLowerLimit(3).setLowerInclusive(true).setUpperLimit(10).setUpperInclusive(false))));
        assertEquals(new QueryItem.Range("score", -0.5, false, 2.5, true),
                     translate(QueryTreeItem.newBuilder().setItemFloatingPointRangeTerm(SearchProtocol.ItemFloatingPointRangeTerm.newBuilder().setProperties(properties("score"))
                             .setLowerLimit(-0.5).setLowerInclusive(false).setUpperLimit(2.5).setUpperInclusive(true))));
        assertEquals(new QueryItem.Unsupported("Range with a hit limit or diversity on 'upvotes' is not supported by this content engine"),
                     translate(QueryTreeItem.newBuilder().setItemIntegerRangeTerm(SearchProtocol.ItemIntegerRangeTerm.newBuilder().setProperties(properties("upvotes"))
                             .setHasRangeLimit(true))));
        assertEquals(new QueryItem.Unsupported("Range with a hit limit or diversity on 'score' is not supported by this content engine"),
                     translate(QueryTreeItem.newBuilder().setItemFloatingPointRangeTerm(SearchProtocol.ItemFloatingPointRangeTerm.newBuilder().setProperties(properties("score"))
                             .setWithDiversity(true))));
    }

    @Test
    void phrasesOfWords() {
        assertEquals(new QueryItem.Phrase("text", List.of("Quick", "fox"), 100, true),
                     translate(QueryTreeItem.newBuilder().setItemPhrase(SearchProtocol.ItemPhrase.newBuilder().setProperties(properties("text"))
                             .addChildren(word("text", "Quick")).addChildren(word("text", "fox")))));
        assertEquals(new QueryItem.Unsupported("Phrase containing ITEM_INTEGER_TERM is not supported by this content engine"),
                     translate(QueryTreeItem.newBuilder().setItemPhrase(SearchProtocol.ItemPhrase.newBuilder().setProperties(properties("text"))
                             .addChildren(word("text", "a"))
                             .addChildren(QueryTreeItem.newBuilder().setItemIntegerTerm(SearchProtocol.ItemIntegerTerm.newBuilder().setNumber(1))))));
    }

    @Test
    void stringAndNumericIn() {
        assertEquals(new QueryItem.In("article_id", List.of("a1", "a2"), List.of(), 100, true, 0),
                     translate(QueryTreeItem.newBuilder().setItemStringIn(SearchProtocol.ItemStringIn.newBuilder().setProperties(properties("article_id"))
                             .addWords("a1").addWords("a2"))));
        assertEquals(new QueryItem.In("upvotes", List.of("1", "20"), List.of(), 100, true, 0),
                     translate(QueryTreeItem.newBuilder().setItemNumericIn(SearchProtocol.ItemNumericIn.newBuilder().setProperties(properties("upvotes"))
                             .addNumbers(1).addNumbers(20))));
    }

    @Test
    void weightedSetsKeepTheirTokensWeightsAndItemsTheirIdsAndWeights() {
        var weighted = SearchProtocol.ItemWeightedSetOfString.newBuilder().setProperties(properties("tags").setUniqueId(3).setItemWeight(40))
                .addWeightedStrings(SearchProtocol.PureWeightedString.newBuilder().setValue("a").setWeight(7))
                .addWeightedStrings(SearchProtocol.PureWeightedString.newBuilder().setValue("b").setWeight(-2));
        QueryItem.In in = (QueryItem.In) translate(QueryTreeItem.newBuilder().setItemWeightedSetOfString(weighted));
        assertEquals(new QueryItem.In("tags", List.of("a", "b"), List.of(7, -2), 40, true, 3), in);
        assertEquals(-2, in.tokenWeight(1));
        assertEquals(1, new QueryItem.In("tags", List.of("a")).tokenWeight(0), "an in weighs each token 1");
        assertEquals(new QueryItem.Term("text", "a", QueryItem.TermType.WORD, 100, true, 5),
                     translate(QueryTreeItem.newBuilder().setItemWordTerm(SearchProtocol.ItemWordTerm.newBuilder().setWord("a").setProperties(properties("text").setUniqueId(5)))));
        assertEquals(new QueryItem.Range("upvotes", 1, true, 2, true, new QueryItem.IntegerBounds(1, true, 2, true), 30, false, 6),
                     translate(QueryTreeItem.newBuilder().setItemIntegerRangeTerm(SearchProtocol.ItemIntegerRangeTerm.newBuilder()
                             .setProperties(properties("upvotes").setUniqueId(6).setItemWeight(30).setDoNotRank(true))
                             .setLowerLimit(1).setLowerInclusive(true).setUpperLimit(2).setUpperInclusive(true))));
    }

    @Test
    void nearestNeighborWithItsSettings() {
        var item = SearchProtocol.ItemNearestNeighbor.newBuilder().setProperties(properties("embedding").setUniqueId(4))
                .setQueryTensorName("q").setTargetNumHits(10).setExploreAdditionalHits(90).setAllowApproximate(true);
        assertEquals(new QueryItem.NearestNeighbor("embedding", 4, "q", 10, 90, true, Optional.empty(), 0),
                     translate(QueryTreeItem.newBuilder().setItemNearestNeighbor(item)));
        item.setApproximateThreshold(0.3).setDistanceThreshold(1.25).setAllowApproximate(false);
        assertEquals(new QueryItem.NearestNeighbor("embedding", 4, "q", 10, 90, false, Optional.of(0.3), 1.25),
                     translate(QueryTreeItem.newBuilder().setItemNearestNeighbor(item)));
    }

    @Test
    void prefixAndFuzzyTermsKeepTheirSettings() {
        assertEquals(new QueryItem.Prefix("author_id", "fo", 100, true),
                     translate(QueryTreeItem.newBuilder().setItemPrefixTerm(SearchProtocol.ItemPrefixTerm.newBuilder().setWord("fo").setProperties(properties("author_id")))));
        assertEquals(new QueryItem.Fuzzy("author_id", "bob", 1, 2, true, 100, true),
                     translate(QueryTreeItem.newBuilder().setItemFuzzy(SearchProtocol.ItemFuzzy.newBuilder().setWord("bob").setMaxEditDistance(1)
                             .setPrefixLockLength(2).setPrefixMatch(true).setProperties(properties("author_id")))));
    }

    @Test
    void unsupportedItemsAreKeptWithTheMessageMatchingFailsWith() {
        assertEquals(new QueryItem.Unsupported("Query item suffix_term is not supported by this content engine"),
                     translate(QueryTreeItem.newBuilder().setItemSuffixTerm(SearchProtocol.ItemSuffixTerm.newBuilder().setWord("fo").setProperties(properties("text")))));
        assertEquals(new QueryItem.And(List.of(term("text", "a"), new QueryItem.Unsupported("Query item near is not supported by this content engine"))),
                     translate(QueryTreeItem.newBuilder().setItemAnd(SearchProtocol.ItemAnd.newBuilder().addChildren(word("text", "a"))
                             .addChildren(QueryTreeItem.newBuilder().setItemNear(SearchProtocol.ItemNear.newBuilder().setDistance(2))))));
    }

    private static QueryItem translate(QueryTreeItem.Builder item) { return translate(item.build()); }

    private static QueryItem translate(QueryTreeItem item) { return ProtobufQueryTree.translate(item); }

    private static QueryTreeItem word(String index, String word) {
        return QueryTreeItem.newBuilder().setItemWordTerm(SearchProtocol.ItemWordTerm.newBuilder().setWord(word).setProperties(properties(index))).build();
    }

    private static QueryItem.Term term(String index, String word) {
        return new QueryItem.Term(index, word, QueryItem.TermType.WORD, 100, true);
    }

    private static SearchProtocol.TermItemProperties.Builder properties(String index) {
        return SearchProtocol.TermItemProperties.newBuilder().setIndex(index);
    }

}
