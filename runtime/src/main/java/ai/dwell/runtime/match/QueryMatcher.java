package ai.dwell.runtime.match;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.TextIndex;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol.QueryTreeItem;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Evaluates the protobuf query tree of a search request (as container-search serializes it) against
 * one document index, with bitset algebra over postings: attribute postings for fast-search attributes
 * (a column scan otherwise), and inverted-index postings with positions for indexed fields.
 *
 * Supported items: TRUE, FALSE, AND, OR, AND_NOT, RANK, WEAK_AND (WAND with targetHits, see {@link WeakAnd}), word, exact-string, integer and floating-point
 * terms (on attributes and indexes, numeric terms may be ranges "[a;b]", "&lt;a", "&gt;a"), integer and
 * floating-point ranges (without range limits), PHRASE on indexed fields, STRING_IN and NUMERIC_IN, and
 * NEAREST_NEIGHBOR on dense vector attributes, searched among what the rest of the query allows
 * ({@link NearestNeighborMatcher}).
 * Anything else throws {@link UnsupportedQueryException} naming the item.
 */
public final class QueryMatcher {

    private final DocumentIndex index;
    private final BitSet active;
    private final List<QueryTerm> terms = new ArrayList<>();
    private final List<NearestNeighborTerm> nearestNeighbors = new ArrayList<>();
    private final QueryContext query;

    private QueryMatcher(DocumentIndex index, QueryContext query) {
        this.index = index;
        this.active = (BitSet) index.active().clone();
        this.query = query;
    }

    /** Matches the query against the index. Call under the index's read lock. */
    public static MatchResult match(DocumentIndex index, SearchProtocol.QueryTree tree) {
        return match(index, tree, QueryContext.NONE);
    }

    /** Matches the query against the index, with the request's query tensors and properties. Call under the index's read lock. */
    public static MatchResult match(DocumentIndex index, SearchProtocol.QueryTree tree, QueryContext query) {
        QueryMatcher matcher = new QueryMatcher(index, query);
        BitSet hits = tree.hasRoot() ? matcher.evaluate(tree.getRoot(), true) : (BitSet) matcher.active.clone();
        hits.and(matcher.active);
        return new MatchResult(hits, matcher.terms, matcher.nearestNeighbors);
    }

    private BitSet evaluate(QueryTreeItem item, boolean ranked) { return evaluate(item, ranked, active); }

    /**
     * Evaluates an item. Candidates are the documents the rest of the query still allows where this item
     * is reached through AND, AND_NOT and RANK: weakAnd scores only those, as proton unpacks only them.
     */
    private BitSet evaluate(QueryTreeItem item, boolean ranked, BitSet candidates) {
        return switch (item.getItemCase()) {
            case ITEM_TRUE -> (BitSet) active.clone();
            case ITEM_FALSE -> new BitSet();
            case ITEM_AND -> and(item.getItemAnd().getChildrenList(), ranked, candidates);
            case ITEM_OR -> or(item.getItemOr().getChildrenList(), ranked);
            case ITEM_WEAK_AND -> weakAnd(item.getItemWeakAnd(), ranked, candidates);
            case ITEM_AND_NOT -> andNot(item.getItemAndNot().getChildrenList(), ranked, candidates);
            case ITEM_RANK -> rank(item.getItemRank().getChildrenList(), ranked, candidates);
            case ITEM_WORD_TERM -> term(item.getItemWordTerm().getProperties(), item.getItemWordTerm().getWord(), ranked);
            case ITEM_EXACTSTRING_TERM -> term(item.getItemExactstringTerm().getProperties(), item.getItemExactstringTerm().getWord(), ranked);
            case ITEM_INTEGER_TERM -> term(item.getItemIntegerTerm().getProperties(), Long.toString(item.getItemIntegerTerm().getNumber()), ranked);
            case ITEM_FLOATING_POINT_TERM -> term(item.getItemFloatingPointTerm().getProperties(), Double.toString(item.getItemFloatingPointTerm().getNumber()), ranked);
            case ITEM_INTEGER_RANGE_TERM -> integerRange(item.getItemIntegerRangeTerm());
            case ITEM_FLOATING_POINT_RANGE_TERM -> floatRange(item.getItemFloatingPointRangeTerm());
            case ITEM_PHRASE -> phrase(item.getItemPhrase(), ranked);
            case ITEM_STRING_IN -> in(item.getItemStringIn().getProperties(), item.getItemStringIn().getWordsList());
            case ITEM_NEAREST_NEIGHBOR -> nearestNeighbor(item.getItemNearestNeighbor(), candidates);
            case ITEM_NUMERIC_IN -> in(item.getItemNumericIn().getProperties(), item.getItemNumericIn().getNumbersList().stream().map(String::valueOf).toList());
            default -> throw new UnsupportedQueryException("Query item " + item.getItemCase().name().toLowerCase(Locale.ROOT).replaceFirst("^item_", "")
                                                           + " is not supported by this content engine");
        };
    }

    /**
     * AND, with weakAnd and nearestNeighbor children evaluated last, among the documents the other
     * children allow (so a nearestNeighbor finds its targetHits within the filter, as proton's global filter).
     */
    private BitSet and(List<QueryTreeItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return new BitSet();
        BitSet result = (BitSet) candidates.clone();
        for (QueryTreeItem child : children)
            if ( ! evaluatedLast(child)) result.and(evaluate(child, ranked, result));
        for (QueryTreeItem child : children)
            if (child.getItemCase() == QueryTreeItem.ItemCase.ITEM_WEAK_AND) result.and(weakAnd(child.getItemWeakAnd(), ranked, result));
        BitSet filter = (BitSet) result.clone();
        for (QueryTreeItem child : children)
            if (child.getItemCase() == QueryTreeItem.ItemCase.ITEM_NEAREST_NEIGHBOR) result.and(nearestNeighbor(child.getItemNearestNeighbor(), filter));
        return result;
    }

    private static boolean evaluatedLast(QueryTreeItem item) {
        return item.getItemCase() == QueryTreeItem.ItemCase.ITEM_WEAK_AND || item.getItemCase() == QueryTreeItem.ItemCase.ITEM_NEAREST_NEIGHBOR;
    }

    private BitSet nearestNeighbor(SearchProtocol.ItemNearestNeighbor item, BitSet candidates) {
        BitSet allowed = (BitSet) candidates.clone();
        allowed.and(active);
        NearestNeighborMatcher.Matched matched = NearestNeighborMatcher.match(index, item, allowed, active, query);
        nearestNeighbors.add(matched.term());
        return matched.hits();
    }

    private BitSet weakAnd(SearchProtocol.ItemWeakAnd weakAnd, boolean ranked, BitSet candidates) {
        List<QueryTreeItem> children = weakAnd.getChildrenList();
        BitSet[] hits = new BitSet[children.size()];
        int[] weights = new int[children.size()];
        for (int i = 0; i < hits.length; i++) {
            hits[i] = evaluate(children.get(i), ranked);
            hits[i].and(active);
            weights[i] = weight(children.get(i));
        }
        return WeakAnd.match(hits, weights, weakAnd.getTargetNumHits(), index.lidLimit(), candidates);
    }

    /** The weight of a term item (100 unless set), as weakAnd weighs its children. */
    private static int weight(QueryTreeItem item) {
        SearchProtocol.TermItemProperties properties = switch (item.getItemCase()) {
            case ITEM_WORD_TERM -> item.getItemWordTerm().getProperties();
            case ITEM_EXACTSTRING_TERM -> item.getItemExactstringTerm().getProperties();
            case ITEM_INTEGER_TERM -> item.getItemIntegerTerm().getProperties();
            case ITEM_FLOATING_POINT_TERM -> item.getItemFloatingPointTerm().getProperties();
            case ITEM_PHRASE -> item.getItemPhrase().getProperties();
            default -> null;
        };
        return properties != null && properties.hasItemWeight() ? properties.getItemWeight() : 100;
    }

    private BitSet or(List<QueryTreeItem> children, boolean ranked) {
        BitSet result = new BitSet();
        for (QueryTreeItem child : children) result.or(evaluate(child, ranked));
        return result;
    }

    /** AND_NOT: the first child, among the candidates none of the others match. */
    private BitSet andNot(List<QueryTreeItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return new BitSet();
        BitSet excluded = new BitSet();
        for (QueryTreeItem negative : children.subList(1, children.size())) excluded.or(evaluate(negative, false));
        BitSet allowed = (BitSet) candidates.clone();
        allowed.andNot(excluded);
        BitSet result = evaluate(children.get(0), ranked, allowed);
        result.andNot(excluded);
        return result;
    }

    /** RANK: the first child decides what matches; the others only contribute terms to ranking. */
    private BitSet rank(List<QueryTreeItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return new BitSet();
        BitSet result = evaluate(children.get(0), ranked, candidates);
        for (QueryTreeItem other : children.subList(1, children.size())) evaluate(other, ranked);
        return result;
    }

    private BitSet term(SearchProtocol.TermItemProperties properties, String word, boolean ranked) {
        BitSet result = new BitSet();
        for (String field : fields(properties.getIndex())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) {
                TextIndex.Postings postings = text.get().postings(word);
                if (postings != null) postings.documents().orInto(result);
                if (ranked && ! properties.getDoNotRank())
                    terms.add(new QueryTerm(field, word.toLowerCase(Locale.ROOT), properties.hasItemWeight() ? properties.getItemWeight() : 100));
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            if ( ! attribute.get().matchTerm(word, active, result))
                throw new UnsupportedQueryException("Term '" + word + "' can not be matched against attribute '" + field + "'");
        }
        return result;
    }

    private BitSet in(SearchProtocol.TermItemProperties properties, List<String> words) {
        BitSet result = new BitSet();
        for (String field : fields(properties.getIndex())) {
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            for (String word : words)
                if ( ! attribute.get().matchTerm(word, active, result))
                    throw new UnsupportedQueryException("Term '" + word + "' can not be matched against attribute '" + field + "'");
        }
        return result;
    }

    private BitSet integerRange(SearchProtocol.ItemIntegerRangeTerm range) {
        if (range.getHasRangeLimit() || range.getWithDiversity())
            throw new UnsupportedQueryException("Range with a hit limit or diversity on '" + range.getProperties().getIndex() + "' is not supported by this content engine");
        return range(range.getProperties().getIndex(), range.getLowerLimit(), range.getLowerInclusive(), range.getUpperLimit(), range.getUpperInclusive());
    }

    private BitSet floatRange(SearchProtocol.ItemFloatingPointRangeTerm range) {
        if (range.getHasRangeLimit() || range.getWithDiversity())
            throw new UnsupportedQueryException("Range with a hit limit or diversity on '" + range.getProperties().getIndex() + "' is not supported by this content engine");
        return range(range.getProperties().getIndex(), range.getLowerLimit(), range.getLowerInclusive(), range.getUpperLimit(), range.getUpperInclusive());
    }

    private BitSet range(String indexName, double low, boolean lowInclusive, double high, boolean highInclusive) {
        BitSet result = new BitSet();
        for (String field : fields(indexName)) {
            Attribute attribute = attribute(field);
            if ( ! attribute.isNumeric())
                throw new UnsupportedQueryException("Numeric range on non-numeric field '" + field + "' is not supported");
            attribute.matchRange(low, lowInclusive, high, highInclusive, active, result);
        }
        return result;
    }

    private BitSet phrase(SearchProtocol.ItemPhrase phrase, boolean ranked) {
        List<String> words = new ArrayList<>();
        for (QueryTreeItem child : phrase.getChildrenList()) {
            if (child.getItemCase() != QueryTreeItem.ItemCase.ITEM_WORD_TERM)
                throw new UnsupportedQueryException("Phrase containing " + child.getItemCase() + " is not supported by this content engine");
            words.add(child.getItemWordTerm().getWord().toLowerCase(Locale.ROOT));
        }
        BitSet result = new BitSet();
        for (String field : fields(phrase.getProperties().getIndex())) {
            TextIndex text = index.index(field).orElseThrow(() ->
                    new UnsupportedQueryException("Phrase on '" + field + "', which is not an indexed field, is not supported"));
            if (ranked && ! phrase.getProperties().getDoNotRank())
                for (String word : words) terms.add(new QueryTerm(field, word, 100));
            result.or(phraseHits(text, words));
        }
        return result;
    }

    private static BitSet phraseHits(TextIndex text, List<String> words) {
        if (words.isEmpty()) return new BitSet();
        TextIndex.Postings[] postings = new TextIndex.Postings[words.size()];
        BitSet candidates = null;
        for (int i = 0; i < words.size(); i++) {
            postings[i] = text.postings(words.get(i));
            if (postings[i] == null) return new BitSet();
            if (candidates == null) postings[i].documents().orInto(candidates = new BitSet());
            else postings[i].documents().retainIn(candidates);
        }
        BitSet result = new BitSet();
        for (int lid = candidates.nextSetBit(0); lid >= 0; lid = candidates.nextSetBit(lid + 1))
            if (hasPhrase(postings, lid)) result.set(lid);
        return result;
    }

    private static boolean hasPhrase(TextIndex.Postings[] postings, int lid) {
        for (int start : postings[0].positions(lid)) {
            boolean all = true;
            for (int i = 1; i < postings.length && all; i++)
                all = java.util.Arrays.binarySearch(postings[i].positions(lid), start + i) >= 0;
            if (all) return true;
        }
        return false;
    }

    private List<String> fields(String indexName) {
        return index.resolveFields(indexName.isEmpty() ? "default" : indexName);
    }

    private Attribute attribute(String field) {
        return index.attribute(field).orElseThrow(() ->
                new UnsupportedQueryException("Field '" + field + "' is neither an index nor an attribute in '" + index.name() + "'"));
    }

}
