package ai.dwell.runtime.match;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.NumericAttribute;
import ai.dwell.runtime.index.PostingList;
import ai.dwell.runtime.index.PredicateAssignment;
import ai.dwell.runtime.index.PredicateAttribute;
import ai.dwell.runtime.index.StringAttribute;
import ai.dwell.runtime.index.StringMatching;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.iterator.AndNotIterator;
import ai.dwell.runtime.match.iterator.BitSetIterator;
import ai.dwell.runtime.match.iterator.ConjunctionIterator;
import ai.dwell.runtime.match.iterator.DisjunctionIterator;
import ai.dwell.runtime.match.iterator.DocIdIterator;
import ai.dwell.runtime.match.iterator.FilterIterator;
import ai.dwell.runtime.match.iterator.LocalIds;
import ai.dwell.runtime.match.iterator.PostingListIterator;
import ai.dwell.runtime.match.query.QueryItem;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;

/**
 * Evaluates a query tree ({@link QueryItem}) against one document index by turning each item into a
 * {@link DocIdIterator}: posting lists of indexed fields and of fast-search attributes are walked as they are
 * (a column scan into a bit set otherwise), and AND, OR, AND_NOT, RANK and phrases combine their children's
 * iterators lazily. What matched is then collected, in order, into the array of local ids that ranking reads.
 *
 * Some items need the documents the rest of the query allows (their candidates), which only exist as a
 * bit set: weakAnd (WAND with targetHits, see {@link WeakAnd}) scores only those, as proton unpacks only
 * them, and nearestNeighbor searches among them ({@link NearestNeighborMatcher}). An AND above such an item
 * materializes its other children first, as a bit set, exactly as before iterators; every other AND stays lazy.
 *
 * Supported items: those of {@link QueryItem}; numeric terms on attributes and indexes may be ranges
 * "[a;b]", "&lt;a", "&gt;a". {@link QueryItem.Unsupported} throws {@link UnsupportedQueryException} with its message.
 */
public final class QueryMatcher {

    /** Above this many posting lists for one term or range (e.g. a wide range on a timestamp), one bit set is cheaper than a heap. */
    private static final int MAX_MERGED_POSTING_LISTS = 16;

    private final DocumentIndex index;
    private final BitSet active;
    private final List<QueryTerm> terms = new ArrayList<>();
    private final List<NearestNeighborTerm> nearestNeighbors = new ArrayList<>();
    private final List<PredicateTerm> predicates = new ArrayList<>();
    private final Map<QueryItem, BitSet> hitsOf = new IdentityHashMap<>(); // of nearestNeighbor and wand items, for their rank terms
    private final QueryContext query;
    private final boolean streaming; // a streaming search: every item finds its hits among the active documents alone, nearestNeighbor exactly

    private QueryMatcher(DocumentIndex index, QueryContext query) {
        this(index, query, index.searched(), false); // the index's own set, not a copy: matching only reads it, under the read lock
    }

    private QueryMatcher(DocumentIndex index, QueryContext query, BitSet active, boolean streaming) {
        this.index = index;
        this.active = active;
        this.query = query;
        this.streaming = streaming;
    }

    /** Matches the query against the index. Call under the index's read lock. */
    public static MatchResult match(DocumentIndex index, QueryItem root) {
        return match(index, root, QueryContext.NONE);
    }

    /** Matches the query against the index, with the request's query tensors and properties. Call under the index's read lock. */
    public static MatchResult match(DocumentIndex index, QueryItem root, QueryContext query) {
        BitSet activeBefore = null;
        assert (activeBefore = (BitSet) index.searched().clone()) != null; // with assertions on (tests): check it is not changed
        QueryMatcher matcher = new QueryMatcher(index, query);
        LocalIds hits = new LocalIds(64);
        matcher.iterator(root, true, matcher.active).addTo(hits, matcher.active);
        assert index.searched().equals(activeBefore) : "matching changed the index's searched documents";
        return new MatchResult(hits.array(), hits.size(), matcher.terms, matcher.nearestNeighbors, RankTerms.of(root, index, matcher.hitsOf),
                               matcher.predicates);
    }

    /**
     * Matches the query against only these of the index's documents, as a summary request that computes rank features
     * for its documents needs: whether, and how, one of them matches depends on that document alone, so walking the rest
     * of the index (all of it, for a summary request without its query tree) would be work for nothing. A query with
     * a weakAnd, wand or nearestNeighbor item, whose hits depend on the other documents, is matched against all of them.
     * Call under the index's read lock.
     */
    public static MatchResult matchWithin(DocumentIndex index, QueryItem root, QueryContext query, BitSet documents) {
        if (dependsOnOtherDocuments(root)) return match(index, root, query);
        BitSet within = (BitSet) documents.clone();
        within.and(index.searched());
        QueryMatcher matcher = new QueryMatcher(index, query, within, false);
        LocalIds hits = new LocalIds(Math.max(1, within.cardinality()));
        matcher.iterator(root, true, matcher.active).addTo(hits, matcher.active);
        return new MatchResult(hits.array(), hits.size(), matcher.terms, matcher.nearestNeighbors, RankTerms.of(root, index, matcher.hitsOf),
                               matcher.predicates);
    }

    /**
     * Matches the query as a streaming search does: against these documents alone (a streaming query's group or
     * selection), as if they were all the index held; a weakAnd, wand or nearestNeighbor item finds its hits among
     * them, and nearestNeighbor searches them exactly (streaming search has no HNSW graph), its best targetHits.
     * Call under the index's read lock.
     */
    public static MatchResult matchStreaming(DocumentIndex index, QueryItem root, QueryContext query, BitSet documents) {
        BitSet within = (BitSet) documents.clone();
        within.and(index.searched());
        QueryMatcher matcher = new QueryMatcher(index, query, within, true);
        LocalIds hits = new LocalIds(Math.max(1, within.cardinality()));
        matcher.iterator(root, true, matcher.active).addTo(hits, matcher.active);
        return new MatchResult(hits.array(), hits.size(), matcher.terms, matcher.nearestNeighbors, RankTerms.of(root, index, matcher.hitsOf),
                               matcher.predicates);
    }

    /** Whether the item or anything below it finds its hits among the other documents (weakAnd, wand, nearestNeighbor). */
    private static boolean dependsOnOtherDocuments(QueryItem item) {
        if (item instanceof QueryItem.WeakAnd || item instanceof QueryItem.Wand || item instanceof QueryItem.NearestNeighbor) return true;
        List<QueryItem> children = item instanceof QueryItem.And and ? and.children()
                                 : item instanceof QueryItem.Or or ? or.children()
                                 : item instanceof QueryItem.AndNot andNot ? andNot.children()
                                 : item instanceof QueryItem.Rank rank ? rank.children()
                                 : item instanceof QueryItem.SameElement sameElement ? sameElement.children()
                                 : List.of();
        return children.stream().anyMatch(QueryMatcher::dependsOnOtherDocuments);
    }

    /**
     * The iterator of an item; ranked terms and nearestNeighbor items are collected as it is made. Candidates are
     * the documents the rest of the query still allows where this item is reached through AND, AND_NOT and RANK
     * (never changed once passed here).
     */
    private DocIdIterator iterator(QueryItem item, boolean ranked, BitSet candidates) {
        if (item instanceof QueryItem.True) return new BitSetIterator(active);
        if (item instanceof QueryItem.False) return DocIdIterator.empty();
        if (item instanceof QueryItem.And and) return and(and.children(), ranked, candidates);
        if (item instanceof QueryItem.Or or) return or(or.children(), ranked);
        if (item instanceof QueryItem.WeakAnd weakAnd) return new BitSetIterator(weakAnd(weakAnd, ranked, candidates));
        if (item instanceof QueryItem.AndNot andNot) return andNot(andNot.children(), ranked, candidates);
        if (item instanceof QueryItem.Rank rank) return rank(rank.children(), ranked, candidates);
        if (item instanceof QueryItem.Term term) return term(term, ranked);
        if (item instanceof QueryItem.Range range) return range(range);
        if (item instanceof QueryItem.Phrase phrase) return phrase(phrase, ranked);
        if (item instanceof QueryItem.In in) return in(in);
        if (item instanceof QueryItem.DotProduct dotProduct) return dotProduct(dotProduct, ranked);
        if (item instanceof QueryItem.SameElement sameElement) return new BitSetIterator(SameElementMatcher.match(index, sameElement, this::iteratorOf, active));
        if (item instanceof QueryItem.Wand wand) return new BitSetIterator(wand(wand, ranked, active));
        if (item instanceof QueryItem.Prefix prefix)
            return stringValues(prefix.index(), "prefix", attribute -> attribute.prefix(prefix.prefix()));
        if (item instanceof QueryItem.Regexp regexp)
            return stringValues(regexp.index(), "regexp", attribute -> attribute.regexp(regexp.pattern()));
        if (item instanceof QueryItem.Fuzzy fuzzy)
            return stringValues(fuzzy.index(), "fuzzy", attribute -> attribute.fuzzy(fuzzy.word(), fuzzy.maxEditDistance(),
                                                                                     fuzzy.prefixLockLength(), fuzzy.prefixMatch()));
        if (item instanceof QueryItem.NearestNeighbor nearestNeighbor) return new BitSetIterator(nearestNeighbor(nearestNeighbor, candidates));
        if (item instanceof QueryItem.Predicate predicate) return predicate(predicate);
        if (item instanceof QueryItem.Unsupported unsupported) throw new UnsupportedQueryException(unsupported.message());
        throw new IllegalStateException("Unknown query item " + item);
    }

    /**
     * AND, with weakAnd and nearestNeighbor children evaluated last, among the documents the other
     * children allow (so a nearestNeighbor finds its targetHits within the filter, as proton's global filter).
     * Lazy unless something below needs its candidates as a bit set.
     */
    private DocIdIterator and(List<QueryItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return DocIdIterator.empty();
        if (children.stream().noneMatch(QueryMatcher::needsCandidates)) {
            List<DocIdIterator> all = new ArrayList<>(children.size() + 1);
            // every result is kept to the active documents in the end: only narrower candidates need walking
            if (candidates != active) all.add(new BitSetIterator(candidates));
            for (QueryItem child : children) all.add(iterator(child, ranked, candidates));
            return new ConjunctionIterator(all);
        }
        BitSet result = candidates;
        for (QueryItem child : children)
            if ( ! evaluatedLast(child)) result = intersection(result, iterator(child, ranked, result));
        for (QueryItem child : children)
            if (child instanceof QueryItem.WeakAnd weakAnd) result = intersection(result, new BitSetIterator(weakAnd(weakAnd, ranked, result)));
            else if (child instanceof QueryItem.Wand wand) result = intersection(result, new BitSetIterator(wand(wand, ranked, result)));
        BitSet filter = result;
        for (QueryItem child : children)
            if (child instanceof QueryItem.NearestNeighbor nearestNeighbor)
                result = intersection(result, new BitSetIterator(nearestNeighbor(nearestNeighbor, filter)));
        return new BitSetIterator(result);
    }

    private static BitSet intersection(BitSet set, DocIdIterator iterator) {
        return new ConjunctionIterator(List.of(new BitSetIterator(set), iterator)).toBitSet();
    }

    private static boolean evaluatedLast(QueryItem item) {
        return item instanceof QueryItem.WeakAnd || item instanceof QueryItem.Wand || item instanceof QueryItem.NearestNeighbor;
    }

    /** Whether the item or anything below it reads its candidates (weakAnd, nearestNeighbor). */
    private static boolean needsCandidates(QueryItem item) {
        if (item instanceof QueryItem.WeakAnd || item instanceof QueryItem.Wand || item instanceof QueryItem.NearestNeighbor) return true;
        List<QueryItem> children = item instanceof QueryItem.And and ? and.children()
                                 : item instanceof QueryItem.AndNot andNot ? andNot.children()
                                 : item instanceof QueryItem.Rank rank ? rank.children()
                                 : List.of();
        return children.stream().anyMatch(QueryMatcher::needsCandidates);
    }

    private BitSet nearestNeighbor(QueryItem.NearestNeighbor item, BitSet candidates) {
        BitSet allowed = (BitSet) candidates.clone();
        allowed.and(active);
        NearestNeighborMatcher.Matched matched = streaming ? NearestNeighborMatcher.matchExactly(index, item, allowed, query)
                                                           : NearestNeighborMatcher.match(index, item, allowed, active, query);
        nearestNeighbors.add(matched.term());
        hitsOf.put(item, matched.hits());
        return matched.hits();
    }

    /** WAND scores bit sets: each child is collected into one, among the active documents. */
    private BitSet weakAnd(QueryItem.WeakAnd weakAnd, boolean ranked, BitSet candidates) {
        List<QueryItem> children = weakAnd.children();
        BitSet[] hits = new BitSet[children.size()];
        int[] weights = new int[children.size()];
        for (int i = 0; i < hits.length; i++) {
            hits[i] = iterator(children.get(i), ranked, active).toBitSet();
            hits[i].and(active);
            weights[i] = children.get(i).weight();
        }
        return WeakAnd.match(hits, weights, weakAnd.targetHits(), index.lidLimit(), candidates);
    }

    private DocIdIterator or(List<QueryItem> children, boolean ranked) {
        List<DocIdIterator> iterators = new ArrayList<>(children.size());
        for (QueryItem child : children) iterators.add(iterator(child, ranked, active));
        return union(iterators);
    }

    /** AND_NOT: the first child, among the candidates none of the others match. */
    private DocIdIterator andNot(List<QueryItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return DocIdIterator.empty();
        List<DocIdIterator> negatives = new ArrayList<>(children.size() - 1);
        for (QueryItem negative : children.subList(1, children.size())) negatives.add(iterator(negative, false, active));
        DocIdIterator excluded = union(negatives);
        if ( ! needsCandidates(children.get(0)))
            return new AndNotIterator(iterator(children.get(0), ranked, candidates), excluded);
        BitSet excludedSet = excluded.toBitSet();
        BitSet allowed = (BitSet) candidates.clone();
        allowed.andNot(excludedSet);
        return new AndNotIterator(iterator(children.get(0), ranked, allowed), new BitSetIterator(excludedSet));
    }

    /** RANK: the first child decides what matches; the others only contribute terms to ranking (their iterators are not walked). */
    private DocIdIterator rank(List<QueryItem> children, boolean ranked, BitSet candidates) {
        if (children.isEmpty()) return DocIdIterator.empty();
        DocIdIterator result = iterator(children.get(0), ranked, candidates);
        for (QueryItem other : children.subList(1, children.size())) iterator(other, ranked, active);
        return result;
    }

    private DocIdIterator term(QueryItem.Term term, boolean ranked) {
        List<DocIdIterator> iterators = new ArrayList<>();
        for (String field : fields(term.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) {
                TextIndex.Postings postings = text.get().postings(term.word());
                if (postings != null) iterators.add(new PostingListIterator(postings.documents()));
                if (ranked && term.ranked())
                    terms.add(new QueryTerm(field, term.word().toLowerCase(Locale.ROOT), term.weight()));
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            iterators.add(attributeTerm(attribute.get(), field, term.word()));
            if (ranked && term.ranked()) terms.add(new QueryTerm(field, term.word(), term.weight())); // as the query has it: attributeMatch matches it as the attribute does
        }
        return union(iterators);
    }

    /**
     * A match on the values of string attributes (prefix, regexp, fuzzy), single-value or the elements of arrays and
     * weighted sets: each distinct value is tested once. Vespa matches these on attributes only (and in streaming
     * search), so an indexed field is refused by name, as a numeric attribute is.
     */
    private DocIdIterator stringValues(String fieldOrSet, String kind, java.util.function.Function<StringMatching, java.util.function.Predicate<String>> test) {
        List<DocIdIterator> iterators = new ArrayList<>();
        for (String field : fields(fieldOrSet)) {
            if (index.index(field).isPresent())
                throw new UnsupportedQueryException(kind + " matching on the indexed field '" + field + "' is not supported (only on attributes)");
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            StringMatching strings = stringMatching(attribute.get());
            if (strings == null)
                throw new UnsupportedQueryException(kind + " matching on '" + field + "', which is not a string attribute, is not supported");
            BitSet result = new BitSet();
            strings.matchValues(test.apply(strings), active, result);
            iterators.add(new BitSetIterator(result));
        }
        return union(iterators);
    }

    /** The attribute's string matching: a string attribute, or an array or weighted set of strings; else null. */
    static StringMatching stringMatching(Attribute attribute) {
        if (attribute instanceof StringAttribute strings) return strings;
        if (attribute instanceof MultiValueAttribute multi && multi.elements() == MultiValueAttribute.Elements.STRING) return multi;
        return null;
    }

    /** dotProduct: matched as in (any of the tokens); its tokens, with their weights, are ranked terms for rawScore. */
    private DocIdIterator dotProduct(QueryItem.DotProduct dotProduct, boolean ranked) {
        if (ranked && dotProduct.ranked())
            for (String field : fields(dotProduct.index()))
                for (int i = 0; i < dotProduct.tokens().size(); i++)
                    terms.add(new QueryTerm(field, dotProduct.tokens().get(i), dotProduct.weights().get(i), QueryTerm.Kind.DOT_PRODUCT, dotProduct.uniqueId()));
        return in(new QueryItem.In(dotProduct.index(), dotProduct.tokens()));
    }

    /** The documents an item matches, unranked (for sameElement's children). */
    private BitSet iteratorOf(QueryItem item) { return iterator(item, false, active).toBitSet(); }

    /** wand on an array or weighted set attribute: see {@link ParallelWand}; its tokens are ranked terms for rawScore. */
    private BitSet wand(QueryItem.Wand wand, boolean ranked, BitSet candidates) {
        List<String> fields = fields(wand.index());
        if (fields.size() != 1 || ! (index.attribute(fields.get(0)).orElse(null) instanceof ai.dwell.runtime.index.MultiValueAttribute attribute)) {
            if (fields.stream().allMatch(field -> index.attribute(field).isEmpty() && index.index(field).isEmpty())) return new BitSet(); // not of this type
            throw new UnsupportedQueryException("wand on '" + wand.index() + "' is not supported by this content engine: only on one array or weighted set attribute");
        }
        if (ranked && wand.ranked())
            for (int i = 0; i < wand.tokens().size(); i++)
                terms.add(new QueryTerm(fields.get(0), wand.tokens().get(i), wand.weights().get(i), QueryTerm.Kind.DOT_PRODUCT, wand.uniqueId()));
        BitSet holding = in(new QueryItem.In(wand.index(), wand.tokens())).toBitSet();
        holding.and(candidates);
        holding.and(active);
        BitSet hits = ParallelWand.match(holding, attribute, wand.tokens(), wand.weights(), wand.targetHits(), wand.scoreThreshold(), wand.thresholdBoostFactor());
        if (ranked && wand.ranked()) hitsOf.put(wand, hits);
        return hits;
    }

    private DocIdIterator in(QueryItem.In in) {
        List<DocIdIterator> iterators = new ArrayList<>();
        for (String field : fields(in.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) { // weightedSet or in on an indexed field: the documents with any of the terms
                for (String word : in.words()) {
                    TextIndex.Postings postings = text.get().postings(word);
                    if (postings != null) iterators.add(new PostingListIterator(postings.documents()));
                }
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            for (String word : in.words()) iterators.add(attributeTerm(attribute.get(), field, word));
        }
        return union(iterators);
    }

    /** The active documents whose attribute value matches the term: its posting lists where it has them, else a scan. */
    private DocIdIterator attributeTerm(Attribute attribute, String field, String word) {
        Optional<List<PostingList>> postings = attribute.termPostings(word);
        if (postings.isPresent() && postings.get().size() <= MAX_MERGED_POSTING_LISTS)
            return amongActive(postings.get());
        BitSet result = new BitSet();
        if ( ! attribute.matchTerm(word, active, result))
            throw new UnsupportedQueryException("Term '" + word + "' can not be matched against attribute '" + field + "'");
        return new BitSetIterator(result);
    }

    private DocIdIterator range(QueryItem.Range range) {
        List<DocIdIterator> iterators = new ArrayList<>();
        for (String field : fields(range.index())) {
            Attribute attribute = attribute(field);
            if ( ! attribute.hasNumericValues())
                throw new UnsupportedQueryException("Numeric range on non-numeric field '" + field + "' is not supported");
            if (range.integers() != null && attribute instanceof NumericAttribute numeric && numeric.kind() == NumericAttribute.Kind.INT64) {
                BitSet result = new BitSet(); // compared as longs: a double holds int64 values exactly only up to 2^53
                numeric.matchIntegerRange(range.integers().low(), range.integers().lowInclusive(),
                                          range.integers().high(), range.integers().highInclusive(), active, result);
                iterators.add(new BitSetIterator(result));
                continue;
            }
            Optional<List<PostingList>> postings = attribute.rangePostings(range.low(), range.lowInclusive(), range.high(), range.highInclusive());
            if (postings.isPresent() && postings.get().size() <= MAX_MERGED_POSTING_LISTS) {
                iterators.add(amongActive(postings.get()));
                continue;
            }
            BitSet result = new BitSet();
            attribute.matchRange(range.low(), range.lowInclusive(), range.high(), range.highInclusive(), active, result);
            iterators.add(new BitSetIterator(result));
        }
        return union(iterators);
    }

    /**
     * predicate(field, features, ranges): the active documents whose predicate field holds for the features, for some
     * subquery; the subqueries each matched for are kept for the subqueries(field) feature.
     */
    private DocIdIterator predicate(QueryItem.Predicate predicate) {
        List<DocIdIterator> iterators = new ArrayList<>();
        PredicateAssignment assignment = new PredicateAssignment(predicate.features(), predicate.ranges());
        for (String field : fields(predicate.index())) {
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue; // not a field of this document type: no hits here, as proton
            if ( ! (attribute.get() instanceof PredicateAttribute predicates))
                throw new UnsupportedQueryException("predicate on '" + field + "', which is not a predicate field, is not supported");
            PredicateAttribute.Hits hits = predicates.match(assignment, active);
            this.predicates.add(new PredicateTerm(field, hits));
            iterators.add(new BitSetIterator(hits.toBitSet()));
        }
        return union(iterators);
    }

    private DocIdIterator amongActive(List<PostingList> postings) {
        List<DocIdIterator> lists = new ArrayList<>(postings.size());
        for (PostingList list : postings) lists.add(new PostingListIterator(list, active));
        return union(lists);
    }

    private DocIdIterator phrase(QueryItem.Phrase phrase, boolean ranked) {
        List<String> words = phrase.words().stream().map(word -> word.toLowerCase(Locale.ROOT)).toList();
        List<DocIdIterator> iterators = new ArrayList<>();
        for (String field : fields(phrase.index())) {
            TextIndex text = index.index(field).orElseThrow(() ->
                    new UnsupportedQueryException("Phrase on '" + field + "', which is not an indexed field, is not supported"));
            if (ranked && phrase.ranked())
                for (String word : words) terms.add(new QueryTerm(field, word, 100));
            iterators.add(phraseIterator(text, words));
        }
        return union(iterators);
    }

    /** The documents that have all the words, filtered to those with them in consecutive positions. */
    private static DocIdIterator phraseIterator(TextIndex text, List<String> words) {
        if (words.isEmpty()) return DocIdIterator.empty();
        TextIndex.Postings[] postings = new TextIndex.Postings[words.size()];
        List<DocIdIterator> all = new ArrayList<>(words.size());
        for (int i = 0; i < words.size(); i++) {
            postings[i] = text.postings(words.get(i));
            if (postings[i] == null) return DocIdIterator.empty();
            all.add(new PostingListIterator(postings[i].documents()));
        }
        return new FilterIterator(new ConjunctionIterator(all), lid -> hasPhrase(postings, lid));
    }

    private static boolean hasPhrase(TextIndex.Postings[] postings, int lid) {
        for (int start : postings[0].positions(lid)) {
            boolean all = true;
            for (int i = 1; i < postings.length && all; i++)
                all = Arrays.binarySearch(postings[i].positions(lid), start + i) >= 0;
            if (all) return true;
        }
        return false;
    }

    private static DocIdIterator union(List<DocIdIterator> iterators) {
        if (iterators.isEmpty()) return DocIdIterator.empty();
        if (iterators.size() == 1) return iterators.get(0);
        return new DisjunctionIterator(iterators);
    }

    private List<String> fields(String indexName) {
        return index.resolveFields(indexName.isEmpty() ? "default" : indexName);
    }

    private Attribute attribute(String field) {
        return index.attribute(field).orElseThrow(() ->
                new UnsupportedQueryException("Field '" + field + "' is neither an index nor an attribute in '" + index.name() + "'"));
    }

}
