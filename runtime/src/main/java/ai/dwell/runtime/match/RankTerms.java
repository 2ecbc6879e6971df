package ai.dwell.runtime.match;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.ImportedAttribute;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.NumericAttribute;
import ai.dwell.runtime.index.PostingList;
import ai.dwell.runtime.index.StringMatching;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.query.QueryItem;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The ranked terms of a query ({@link RankTerm}) in the order proton extracts its term data: the query tree depth first,
 * the first child of an AND_NOT only, every ranked term item as one term. What each term matched in each of its fields is
 * read per document as proton's iterators unpack it:
 * <ul>
 *   <li>a word in an index field: its occurrences; a phrase: the occurrences of the whole phrase (where its first word is);
 *   <li>an in or weightedSet: one occurrence per token the document holds, with the token's weight (1 in an in), the
 *       heaviest first, without positions or length (searchlib's WeightedSetTermSearch);
 *   <li>a word, number, range, prefix, regexp or fuzzy term on an attribute: one occurrence whose weight is the weight of
 *       the first element that matches (1 for a single value and in an array);
 *   <li>dotProduct, wand and nearestNeighbor: a match (a raw score in proton) without occurrences, weight 1.
 * </ul>
 * Terms inside sameElement are not ranked terms here (matching reads them unranked), so they are not among these.
 */
final class RankTerms {

    private static final RankTerm.Unpacker NEVER = (lid, data) -> false;

    private final DocumentIndex index;
    private final Map<QueryItem, BitSet> hitsOf;
    private final long documents;
    private final List<RankTerm> terms = new ArrayList<>();

    private RankTerms(DocumentIndex index, Map<QueryItem, BitSet> hitsOf) {
        this.index = index;
        this.hitsOf = hitsOf;
        this.documents = index.documentCount();
    }

    /**
     * The ranked terms of the query tree over this index.
     *
     * @param hitsOf the documents each nearestNeighbor and wand item matched, by item identity
     */
    static List<RankTerm> of(QueryItem root, DocumentIndex index, Map<QueryItem, BitSet> hitsOf) {
        RankTerms terms = new RankTerms(index, hitsOf);
        terms.visit(root);
        return List.copyOf(terms.terms);
    }

    private void visit(QueryItem item) {
        if (item instanceof QueryItem.And and) and.children().forEach(this::visit);
        else if (item instanceof QueryItem.Or or) or.children().forEach(this::visit);
        else if (item instanceof QueryItem.Rank rank) rank.children().forEach(this::visit);
        else if (item instanceof QueryItem.WeakAnd weakAnd) weakAnd.children().forEach(this::visit);
        else if (item instanceof QueryItem.AndNot andNot) { if ( ! andNot.children().isEmpty()) visit(andNot.children().get(0)); }
        else if (item instanceof QueryItem.Term term) { if (term.ranked()) word(term); }
        else if (item instanceof QueryItem.Phrase phrase) { if (phrase.ranked()) phrase(phrase); }
        else if (item instanceof QueryItem.Range range) { if (range.ranked()) range(range); }
        else if (item instanceof QueryItem.Prefix prefix) {
            if (prefix.ranked()) strings(prefix.index(), prefix.weight(), prefix.uniqueId(), attribute -> attribute.prefix(prefix.prefix()));
        }
        else if (item instanceof QueryItem.Regexp regexp) {
            if (regexp.ranked()) strings(regexp.index(), regexp.weight(), regexp.uniqueId(), attribute -> attribute.regexp(regexp.pattern()));
        }
        else if (item instanceof QueryItem.Fuzzy fuzzy) {
            if (fuzzy.ranked()) strings(fuzzy.index(), fuzzy.weight(), fuzzy.uniqueId(), attribute ->
                    attribute.fuzzy(fuzzy.word(), fuzzy.maxEditDistance(), fuzzy.prefixLockLength(), fuzzy.prefixMatch()));
        }
        else if (item instanceof QueryItem.In in) { if (in.ranked()) in(in); }
        else if (item instanceof QueryItem.DotProduct dotProduct) { if (dotProduct.ranked()) dotProduct(dotProduct); }
        else if (item instanceof QueryItem.Wand wand) { if (wand.ranked()) matchedItem(wand, fields(wand.index()), wand.weight(), wand.uniqueId()); }
        else if (item instanceof QueryItem.NearestNeighbor nearestNeighbor) {
            if (nearestNeighbor.ranked()) matchedItem(nearestNeighbor, List.of(nearestNeighbor.field()), nearestNeighbor.weight(), nearestNeighbor.uniqueId());
        }
        // sameElement: its terms are matched unranked here; true, false and unsupported items hold no term
    }

    private List<String> fields(String indexName) {
        return index.resolveFields(indexName.isEmpty() ? "default" : indexName);
    }

    private void add(int uniqueId, int weight, int phraseLength, List<RankTerm.Field> fields, long matching) {
        long total = Math.max(1, documents);
        terms.add(new RankTerm(uniqueId, weight, phraseLength, fields, documents == 0 ? 0 : Math.min(matching, total), total));
    }

    private void word(QueryItem.Term term) {
        List<RankTerm.Field> fields = new ArrayList<>();
        long matching = 0;
        for (String field : fields(term.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) {
                TextIndex.Postings postings = text.get().postings(term.word());
                matching += postings == null ? 0 : postings.documentCount();
                fields.add(new RankTerm.Field(field, false, () -> postings == null ? NEVER : (lid, data) -> occurrences(text.get(), postings.positions(lid), lid, data)));
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue;
            matching += attribute.get().termPostings(term.word()).map(RankTerms::size).orElse(documents);
            fields.add(new RankTerm.Field(field, true, () -> attributeTerm(attribute.get(), result -> matchTerm(attribute.get(), term.word(), result),
                                                                           multi -> multi.termMatcher(term.word()))));
        }
        add(term.uniqueId(), term.weight(), 1, term.usePositionData() ? fields : withoutPositions(fields), matching);
    }

    /**
     * The fields of a term the request says not to use position data for: proton then searches it as a filter, whose
     * matches have no occurrences (and so weight 1 in an attribute).
     */
    private static List<RankTerm.Field> withoutPositions(List<RankTerm.Field> fields) {
        return fields.stream().map(field -> new RankTerm.Field(field.name(), field.attribute(), () -> {
            RankTerm.Unpacker unpacker = field.unpacker().get();
            return (lid, data) -> {
                if ( ! unpacker.unpack(lid, data)) return false;
                data.reset();
                return true;
            };
        })).toList();
    }

    private void phrase(QueryItem.Phrase phrase) {
        List<RankTerm.Field> fields = new ArrayList<>();
        long matching = 0;
        for (String field : fields(phrase.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isEmpty()) continue;
            TextIndex.Postings[] postings = new TextIndex.Postings[phrase.words().size()];
            long least = Long.MAX_VALUE;
            for (int i = 0; i < postings.length; i++) {
                postings[i] = text.get().postings(phrase.words().get(i));
                least = Math.min(least, postings[i] == null ? 0 : postings[i].documentCount());
            }
            boolean possible = postings.length > 0 && Arrays.stream(postings).allMatch(p -> p != null);
            matching += postings.length == 0 ? 0 : least;
            fields.add(new RankTerm.Field(field, false, () -> possible ? (lid, data) -> phraseOccurrences(text.get(), postings, lid, data) : NEVER));
        }
        add(phrase.uniqueId(), phrase.weight(), Math.max(1, phrase.words().size()), phrase.usePositionData() ? fields : withoutPositions(fields), matching);
    }

    private void range(QueryItem.Range range) {
        List<RankTerm.Field> fields = new ArrayList<>();
        for (String field : fields(range.index())) {
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue;
            fields.add(new RankTerm.Field(field, true, () -> attributeTerm(attribute.get(), result -> {
                if (range.integers() != null && attribute.get() instanceof NumericAttribute numeric && numeric.kind() == NumericAttribute.Kind.INT64)
                    numeric.matchIntegerRange(range.integers().low(), range.integers().lowInclusive(), range.integers().high(), range.integers().highInclusive(),
                                              index.searched(), result);
                else
                    attribute.get().matchRange(range.low(), range.lowInclusive(), range.high(), range.highInclusive(), index.searched(), result);
                return true;
            }, multi -> item -> item instanceof Number number && range.contains(number.doubleValue()))));
        }
        add(range.uniqueId(), range.weight(), 1, fields, documents);
    }

    /**
     * A prefix, regexp or fuzzy term: on string attributes, single-value or arrays and weighted sets of strings (matching
     * refuses it elsewhere); weight 1, or in a weighted set the weight of the first element it matched.
     */
    private void strings(String indexName, int weight, int uniqueId,
                         java.util.function.Function<StringMatching, java.util.function.Predicate<String>> test) {
        List<RankTerm.Field> fields = new ArrayList<>();
        for (String field : fields(indexName)) {
            Attribute attribute = index.attribute(field).orElse(null);
            StringMatching strings = attribute == null ? null : QueryMatcher.stringMatching(attribute);
            if (strings == null) continue;
            fields.add(new RankTerm.Field(field, true, () -> {
                java.util.function.Predicate<String> accepts = test.apply(strings);
                return attributeTerm(attribute, result -> { strings.matchValues(accepts, index.searched(), result); return true; },
                                     multi -> multi.elementTest(accepts));
            }));
        }
        add(uniqueId, weight, 1, fields, documents);
    }

    private void in(QueryItem.In in) {
        List<RankTerm.Field> fields = new ArrayList<>();
        long matching = 0;
        for (String field : fields(in.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) {
                TextIndex.Postings[] postings = new TextIndex.Postings[in.words().size()];
                for (int i = 0; i < postings.length; i++) {
                    postings[i] = text.get().postings(in.words().get(i));
                    matching += postings[i] == null ? 0 : postings[i].documentCount();
                }
                fields.add(new RankTerm.Field(field, false, () -> new TokenUnpacker(in, postings)));
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue;
            matching += documents;
            fields.add(new RankTerm.Field(field, true, () -> attributeTokens(attribute.get(), in)));
        }
        add(in.uniqueId(), in.weight(), 1, fields, matching);
    }

    private void dotProduct(QueryItem.DotProduct dotProduct) {
        List<RankTerm.Field> fields = new ArrayList<>();
        long matching = 0;
        for (String field : fields(dotProduct.index())) {
            Optional<TextIndex> text = index.index(field);
            if (text.isPresent()) {
                List<TextIndex.Postings> postings = new ArrayList<>();
                for (String token : dotProduct.tokens()) {
                    TextIndex.Postings tokenPostings = text.get().postings(token);
                    if (tokenPostings == null) continue;
                    postings.add(tokenPostings);
                    matching += tokenPostings.documentCount();
                }
                TextIndex.Postings[] all = postings.toArray(TextIndex.Postings[]::new);
                fields.add(new RankTerm.Field(field, false, () -> (lid, data) -> {
                    for (TextIndex.Postings tokenPostings : all) {
                        if (tokenPostings.positions(lid).length == 0) continue;
                        data.reset();
                        return true;
                    }
                    return false;
                }));
                continue;
            }
            Optional<Attribute> attribute = index.attribute(field);
            if (attribute.isEmpty()) continue;
            matching += documents;
            fields.add(new RankTerm.Field(field, true, () -> {
                BitSet holding = new BitSet(), scratch = new BitSet();
                for (String token : dotProduct.tokens()) {
                    scratch.clear();
                    if (matchTerm(attribute.get(), token, scratch)) holding.or(scratch);
                }
                return matched(holding);
            }));
        }
        add(dotProduct.uniqueId(), dotProduct.weight(), 1, fields, matching);
    }

    /** A wand or nearestNeighbor item: it matched the documents matching found for it, each without occurrences. */
    private void matchedItem(QueryItem item, List<String> names, int weight, int uniqueId) {
        BitSet hits = hitsOf.getOrDefault(item, new BitSet());
        List<RankTerm.Field> fields = new ArrayList<>();
        for (String field : names) {
            if (index.attribute(field).isEmpty() && index.index(field).isEmpty()) continue;
            fields.add(new RankTerm.Field(field, index.index(field).isEmpty(), () -> matched(hits)));
        }
        add(uniqueId, weight, 1, fields, hits.cardinality());
    }

    private static RankTerm.Unpacker matched(BitSet hits) {
        return (lid, data) -> {
            if ( ! hits.get(lid)) return false;
            data.reset();
            return true;
        };
    }

    /**
     * A term on an attribute: the documents it matches, found once (per rank program) among those searched here; each
     * match one occurrence whose weight is that of the first matching element of a weighted set, else 1.
     */
    private RankTerm.Unpacker attributeTerm(Attribute attribute, Predicate<BitSet> match,
                                            java.util.function.Function<MultiValueAttribute, Predicate<Object>> elements) {
        BitSet matched = new BitSet();
        if ( ! match.test(matched)) return NEVER;
        ImportedAttribute imported = attribute instanceof ImportedAttribute i ? i : null;
        Attribute values = imported != null ? imported.target() : attribute;
        Predicate<Object> accepts = values instanceof MultiValueAttribute multi && multi.collection() == MultiValueAttribute.Collection.WEIGHTED_SET
                                    && elements != null ? elements.apply(multi) : null;
        MultiValueAttribute weighted = accepts == null ? null : (MultiValueAttribute) values;
        return (lid, data) -> {
            if ( ! matched.get(lid)) return false;
            data.reset();
            int weight = weighted == null ? 1 : weighted.firstWeight(imported != null ? imported.targetLid(lid) : lid, accepts);
            data.add(0, 0, TermFieldMatchData.UNKNOWN_LENGTH, weight);
            return true;
        };
    }

    /** An in or weightedSet on an attribute: one occurrence per token the document holds, the heaviest first (only the first's weight is read). */
    private RankTerm.Unpacker attributeTokens(Attribute attribute, QueryItem.In in) {
        BitSet matched = new BitSet(), scratch = new BitSet();
        int[] heaviest = new int[index.lidLimit()];
        int[] count = new int[index.lidLimit()];
        for (int token = 0; token < in.words().size(); token++) {
            scratch.clear();
            if ( ! matchTerm(attribute, in.words().get(token), scratch)) continue;
            int weight = in.tokenWeight(token);
            for (int lid = scratch.nextSetBit(0); lid >= 0 && lid < heaviest.length; lid = scratch.nextSetBit(lid + 1)) {
                heaviest[lid] = matched.get(lid) ? Math.max(heaviest[lid], weight) : weight;
                count[lid]++;
                matched.set(lid);
            }
        }
        return (lid, data) -> {
            if ( ! matched.get(lid)) return false;
            data.reset();
            data.add(0, 0, TermFieldMatchData.UNKNOWN_LENGTH, heaviest[lid]);
            for (int i = 1; i < count[lid]; i++) data.add(0, 0, TermFieldMatchData.UNKNOWN_LENGTH, heaviest[lid]);
            return true;
        };
    }

    /** An in or weightedSet on an index field: one occurrence per token the document holds, the heaviest first, with no position or length. */
    private static final class TokenUnpacker implements RankTerm.Unpacker {

        private final QueryItem.In in;
        private final TextIndex.Postings[] postings; // by token, null where no document has it
        private final int[] weights;

        TokenUnpacker(QueryItem.In in, TextIndex.Postings[] postings) {
            this.in = in;
            this.postings = postings;
            this.weights = new int[postings.length];
        }

        @Override
        public boolean unpack(int lid, TermFieldMatchData data) {
            int count = 0;
            for (int token = 0; token < postings.length; token++) {
                if (postings[token] == null || postings[token].positions(lid).length == 0) continue;
                int weight = in.tokenWeight(token), at = count++;
                while (at > 0 && weights[at - 1] < weight) { weights[at] = weights[at - 1]; at--; } // heaviest first
                weights[at] = weight;
            }
            if (count == 0) return false;
            data.reset();
            for (int i = 0; i < count; i++) data.add(0, 0, TermFieldMatchData.UNKNOWN_LENGTH, weights[i]);
            return true;
        }

    }

    /** Fills data with a term's occurrences at these positions of the field (the index's positions, over all elements). */
    static boolean occurrences(TextIndex text, int[] positions, int lid, TermFieldMatchData data) {
        if (positions.length == 0) return false;
        data.reset();
        if ( ! text.isMultiValue()) {
            int length = text.fieldLength(lid);
            for (int position : positions) data.add(0, position, length, 1);
            return true;
        }
        TextIndex.Elements elements = data.fieldElements();
        text.elementsOf(lid, elements);
        for (int position : positions) {
            int element = elements.elementOf(position);
            data.add(element, position - elements.start(element), elements.length(element), text.elementWeight(lid, element));
        }
        return true;
    }

    /** Fills data with the occurrences of a phrase (where its first word is, the others following it), if any. */
    static boolean phraseOccurrences(TextIndex text, TextIndex.Postings[] words, int lid, TermFieldMatchData data) {
        int[] first = words[0].positions(lid);
        if (first.length == 0) return false;
        boolean any = false;
        TextIndex.Elements elements = null;
        int length = 0;
        for (int start : first) {
            boolean whole = true;
            for (int i = 1; i < words.length && whole; i++) whole = Arrays.binarySearch(words[i].positions(lid), start + i) >= 0;
            if ( ! whole) continue;
            if ( ! any) {
                any = true;
                data.reset();
                if (text.isMultiValue()) {
                    elements = data.fieldElements();
                    text.elementsOf(lid, elements);
                }
                else {
                    length = text.fieldLength(lid);
                }
            }
            if (elements == null) {
                data.add(0, start, length, 1);
            }
            else {
                int element = elements.elementOf(start);
                data.add(element, start - elements.start(element), elements.length(element), text.elementWeight(lid, element));
            }
        }
        return any;
    }

    /** Adds the searched documents an attribute term matches to result, from its posting lists where it has them; false if the term can not be matched. */
    private boolean matchTerm(Attribute attribute, String word, BitSet result) {
        Optional<List<PostingList>> postings = attribute.termPostings(word);
        if (postings.isEmpty()) return attribute.matchTerm(word, index.searched(), result);
        for (PostingList list : postings.get()) list.orInto(result, index.searched());
        return true;
    }

    private static long size(List<PostingList> lists) {
        long size = 0;
        for (PostingList list : lists) size += list.size();
        return size;
    }

}
