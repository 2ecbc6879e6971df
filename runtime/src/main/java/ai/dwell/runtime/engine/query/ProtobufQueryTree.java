package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.index.PredicateAssignment;
import ai.dwell.runtime.match.query.QueryItem;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol.QueryTreeItem;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Translates the protobuf query tree of a search request (as container-search serializes it) into the
 * engine's {@link QueryItem} tree. An item the engine does not support becomes {@link QueryItem.Unsupported},
 * with the message matching fails with: "Query item X is not supported by this content engine", a range
 * with a hit limit or diversity, a phrase of anything but words.
 */
public final class ProtobufQueryTree {

    private ProtobufQueryTree() {}

    /** The query tree; one without a root matches every active document. */
    public static QueryItem translate(SearchProtocol.QueryTree tree) {
        return tree.hasRoot() ? translate(tree.getRoot()) : new QueryItem.True();
    }

    public static QueryItem translate(QueryTreeItem item) {
        return switch (item.getItemCase()) {
            case ITEM_TRUE -> new QueryItem.True();
            case ITEM_FALSE -> new QueryItem.False();
            case ITEM_AND -> new QueryItem.And(children(item.getItemAnd().getChildrenList()));
            case ITEM_OR -> new QueryItem.Or(children(item.getItemOr().getChildrenList()));
            case ITEM_AND_NOT -> new QueryItem.AndNot(children(item.getItemAndNot().getChildrenList()));
            case ITEM_RANK -> new QueryItem.Rank(children(item.getItemRank().getChildrenList()));
            case ITEM_WEAK_AND -> new QueryItem.WeakAnd(children(item.getItemWeakAnd().getChildrenList()), item.getItemWeakAnd().getTargetNumHits());
            case ITEM_WORD_TERM -> term(item.getItemWordTerm().getProperties(), item.getItemWordTerm().getWord(), QueryItem.TermType.WORD);
            case ITEM_EXACTSTRING_TERM -> term(item.getItemExactstringTerm().getProperties(), item.getItemExactstringTerm().getWord(), QueryItem.TermType.EXACT_STRING);
            case ITEM_INTEGER_TERM -> term(item.getItemIntegerTerm().getProperties(), Long.toString(item.getItemIntegerTerm().getNumber()), QueryItem.TermType.INTEGER);
            case ITEM_FLOATING_POINT_TERM -> term(item.getItemFloatingPointTerm().getProperties(), Double.toString(item.getItemFloatingPointTerm().getNumber()), QueryItem.TermType.FLOATING_POINT);
            case ITEM_INTEGER_RANGE_TERM -> integerRange(item.getItemIntegerRangeTerm());
            case ITEM_FLOATING_POINT_RANGE_TERM -> floatRange(item.getItemFloatingPointRangeTerm());
            case ITEM_PHRASE -> phrase(item.getItemPhrase());
            case ITEM_STRING_IN -> in(item.getItemStringIn().getProperties(), item.getItemStringIn().getWordsList(), List.of());
            case ITEM_NUMERIC_IN -> in(item.getItemNumericIn().getProperties(),
                                       item.getItemNumericIn().getNumbersList().stream().map(String::valueOf).toList(), List.of());
            // weightedSet matches the documents holding any of its tokens; the tokens' weights are what native rank features read
            case ITEM_WEIGHTED_SET_OF_STRING -> in(item.getItemWeightedSetOfString().getProperties(),
                                                   item.getItemWeightedSetOfString().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getValue).toList(),
                                                   item.getItemWeightedSetOfString().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getWeight).toList());
            case ITEM_WEIGHTED_SET_OF_LONG -> in(item.getItemWeightedSetOfLong().getProperties(),
                                                 item.getItemWeightedSetOfLong().getWeightedLongsList().stream().map(w -> Long.toString(w.getValue())).toList(),
                                                 item.getItemWeightedSetOfLong().getWeightedLongsList().stream().map(SearchProtocol.PureWeightedLong::getWeight).toList());
            case ITEM_DOT_PRODUCT_OF_STRING -> new QueryItem.DotProduct(item.getItemDotProductOfString().getProperties().getIndex(),
                    item.getItemDotProductOfString().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getValue).toList(),
                    item.getItemDotProductOfString().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getWeight).toList(),
                    ! item.getItemDotProductOfString().getProperties().getDoNotRank(), item.getItemDotProductOfString().getProperties().getUniqueId(),
                    weight(item.getItemDotProductOfString().getProperties()));
            case ITEM_DOT_PRODUCT_OF_LONG -> new QueryItem.DotProduct(item.getItemDotProductOfLong().getProperties().getIndex(),
                    item.getItemDotProductOfLong().getWeightedLongsList().stream().map(w -> Long.toString(w.getValue())).toList(),
                    item.getItemDotProductOfLong().getWeightedLongsList().stream().map(SearchProtocol.PureWeightedLong::getWeight).toList(),
                    ! item.getItemDotProductOfLong().getProperties().getDoNotRank(), item.getItemDotProductOfLong().getProperties().getUniqueId(),
                    weight(item.getItemDotProductOfLong().getProperties()));
            case ITEM_STRING_WAND -> new QueryItem.Wand(item.getItemStringWand().getProperties().getIndex(),
                    item.getItemStringWand().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getValue).toList(),
                    item.getItemStringWand().getWeightedStringsList().stream().map(SearchProtocol.PureWeightedString::getWeight).toList(),
                    item.getItemStringWand().getTargetNumHits(), item.getItemStringWand().getScoreThreshold(),
                    item.getItemStringWand().getThresholdBoostFactor(), ! item.getItemStringWand().getProperties().getDoNotRank(),
                    item.getItemStringWand().getProperties().getUniqueId(), weight(item.getItemStringWand().getProperties()));
            case ITEM_LONG_WAND -> new QueryItem.Wand(item.getItemLongWand().getProperties().getIndex(),
                    item.getItemLongWand().getWeightedLongsList().stream().map(w -> Long.toString(w.getValue())).toList(),
                    item.getItemLongWand().getWeightedLongsList().stream().map(SearchProtocol.PureWeightedLong::getWeight).toList(),
                    item.getItemLongWand().getTargetNumHits(), item.getItemLongWand().getScoreThreshold(),
                    item.getItemLongWand().getThresholdBoostFactor(), ! item.getItemLongWand().getProperties().getDoNotRank(),
                    item.getItemLongWand().getProperties().getUniqueId(), weight(item.getItemLongWand().getProperties()));
            case ITEM_SAME_ELEMENT -> new QueryItem.SameElement(item.getItemSameElement().getProperties().getIndex(),
                                                                children(item.getItemSameElement().getChildrenList()));
            case ITEM_NEAREST_NEIGHBOR -> nearestNeighbor(item.getItemNearestNeighbor());
            case ITEM_SUBSTRING_TERM -> substring(item.getItemSubstringTerm().getProperties().getIndex());
            case ITEM_PREFIX_TERM -> new QueryItem.Prefix(item.getItemPrefixTerm().getProperties().getIndex(), item.getItemPrefixTerm().getWord(),
                                                          weight(item.getItemPrefixTerm().getProperties()), ! item.getItemPrefixTerm().getProperties().getDoNotRank(),
                                                          item.getItemPrefixTerm().getProperties().getUniqueId());
            case ITEM_FUZZY -> fuzzy(item.getItemFuzzy());
            case ITEM_REGEXP -> new QueryItem.Regexp(item.getItemRegexp().getProperties().getIndex(), item.getItemRegexp().getRegexp(),
                                                     weight(item.getItemRegexp().getProperties()), ! item.getItemRegexp().getProperties().getDoNotRank(),
                                                     item.getItemRegexp().getProperties().getUniqueId());
            case ITEM_PREDICATE_QUERY -> predicate(item.getItemPredicateQuery());
            default -> new QueryItem.Unsupported("Query item " + item.getItemCase().name().toLowerCase(Locale.ROOT).replaceFirst("^item_", "")
                                                 + " is not supported by this content engine");
        };
    }

    private static List<QueryItem> children(List<QueryTreeItem> children) {
        List<QueryItem> result = new ArrayList<>(children.size());
        for (QueryTreeItem child : children) result.add(translate(child));
        return result;
    }

    private static QueryItem term(SearchProtocol.TermItemProperties properties, String word, QueryItem.TermType type) {
        return new QueryItem.Term(properties.getIndex(), word, type, weight(properties), ! properties.getDoNotRank(), properties.getUniqueId(),
                                  ! properties.getDoNotUsePositionData());
    }

    private static QueryItem in(SearchProtocol.TermItemProperties properties, List<String> tokens, List<Integer> weights) {
        return new QueryItem.In(properties.getIndex(), tokens, weights, weight(properties), ! properties.getDoNotRank(), properties.getUniqueId());
    }

    /** The item's weight, 100 unless set. */
    private static int weight(SearchProtocol.TermItemProperties properties) {
        return properties.hasItemWeight() ? properties.getItemWeight() : 100;
    }

    private static QueryItem integerRange(SearchProtocol.ItemIntegerRangeTerm range) {
        if (range.getHasRangeLimit() || range.getWithDiversity()) return unsupportedRange(range.getProperties());
        return new QueryItem.Range(range.getProperties().getIndex(), range.getLowerLimit(), range.getLowerInclusive(),
                                   range.getUpperLimit(), range.getUpperInclusive(),
                                   new QueryItem.IntegerBounds(range.getLowerLimit(), range.getLowerInclusive(), range.getUpperLimit(), range.getUpperInclusive()),
                                   weight(range.getProperties()), ! range.getProperties().getDoNotRank(), range.getProperties().getUniqueId());
    }

    private static QueryItem floatRange(SearchProtocol.ItemFloatingPointRangeTerm range) {
        if (range.getHasRangeLimit() || range.getWithDiversity()) return unsupportedRange(range.getProperties());
        return new QueryItem.Range(range.getProperties().getIndex(), range.getLowerLimit(), range.getLowerInclusive(),
                                   range.getUpperLimit(), range.getUpperInclusive(), null,
                                   weight(range.getProperties()), ! range.getProperties().getDoNotRank(), range.getProperties().getUniqueId());
    }

    private static QueryItem unsupportedRange(SearchProtocol.TermItemProperties properties) {
        return new QueryItem.Unsupported("Range with a hit limit or diversity on '" + properties.getIndex() + "' is not supported by this content engine");
    }

    private static QueryItem predicate(SearchProtocol.ItemPredicateQuery item) {
        return new QueryItem.Predicate(item.getProperties().getIndex(),
                item.getFeaturesList().stream().map(f -> new PredicateAssignment.Feature(f.getKey(), f.getValue(), f.getSubQueries())).toList(),
                item.getRangeFeaturesList().stream().map(f -> new PredicateAssignment.RangeFeature(f.getKey(), f.getValue(), f.getSubQueries())).toList(),
                item.getProperties().getUniqueId());
    }

    private static QueryItem fuzzy(SearchProtocol.ItemFuzzy fuzzy) {
        SearchProtocol.TermItemProperties properties = fuzzy.getProperties();
        return new QueryItem.Fuzzy(properties.getIndex(), fuzzy.getWord(), fuzzy.getMaxEditDistance(), fuzzy.getPrefixLockLength(),
                                   fuzzy.getPrefixMatch(), weight(properties), ! properties.getDoNotRank(), properties.getUniqueId());
    }

    /**
     * A substring term: only on the document meta store, where the container's QueryRewrite puts what is left of an
     * {@code sddocname} term once the query is restricted to that type; proton matches every document there.
     */
    private static QueryItem substring(String index) {
        if (DOCUMENT_META_STORE.equals(index)) return new QueryItem.True();
        return new QueryItem.Unsupported("Query item substring_term is not supported by this content engine");
    }

    /** The index the container sends what remains of an sddocname term to. */
    static final String DOCUMENT_META_STORE = "[documentmetastore]";

    private static QueryItem phrase(SearchProtocol.ItemPhrase phrase) {
        List<String> words = new ArrayList<>();
        for (QueryTreeItem child : phrase.getChildrenList()) {
            if (child.getItemCase() != QueryTreeItem.ItemCase.ITEM_WORD_TERM)
                return new QueryItem.Unsupported("Phrase containing " + child.getItemCase() + " is not supported by this content engine");
            words.add(child.getItemWordTerm().getWord());
        }
        return new QueryItem.Phrase(phrase.getProperties().getIndex(), words, weight(phrase.getProperties()), ! phrase.getProperties().getDoNotRank(),
                                    phrase.getProperties().getUniqueId(), ! phrase.getProperties().getDoNotUsePositionData());
    }

    private static QueryItem nearestNeighbor(SearchProtocol.ItemNearestNeighbor item) {
        return new QueryItem.NearestNeighbor(item.getProperties().getIndex(), item.getProperties().getUniqueId(), item.getQueryTensorName(),
                                             item.getTargetNumHits(), item.getExploreAdditionalHits(), item.getAllowApproximate(),
                                             item.hasApproximateThreshold() ? Optional.of(item.getApproximateThreshold()) : Optional.empty(),
                                             item.getDistanceThreshold(), weight(item.getProperties()), ! item.getProperties().getDoNotRank());
    }

}
