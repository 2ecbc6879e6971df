package ai.dwell.runtime.match.query;

import java.util.List;
import java.util.Optional;

/**
 * The content engine's own query tree: what a request asks to match, independent of the wire format it
 * came in (see ai.dwell.runtime.engine.query.ProtobufQueryTree). Each item is an immutable record; composites hold
 * their children in the request's order, which matching keeps (ranked terms are collected in that order).
 */
public sealed interface QueryItem {

    /** The weight of this item as weakAnd weighs its children: the item's weight, 100 unless set. */
    default int weight() { return 100; }

    /** Matches every active document. */
    record True() implements QueryItem {}

    /** Matches nothing. */
    record False() implements QueryItem {}

    /** Documents matched by all children (none when there are no children). */
    record And(List<QueryItem> children) implements QueryItem {
        public And { children = List.copyOf(children); }
    }

    /** Documents matched by any child. */
    record Or(List<QueryItem> children) implements QueryItem {
        public Or { children = List.copyOf(children); }
    }

    /** Documents matched by the first child and none of the others. */
    record AndNot(List<QueryItem> children) implements QueryItem {
        public AndNot { children = List.copyOf(children); }
    }

    /** Documents matched by the first child; the others only contribute terms to ranking. */
    record Rank(List<QueryItem> children) implements QueryItem {
        public Rank { children = List.copyOf(children); }
    }

    /** WAND over the children: the targetHits best by the sum of the weights of the children they match. */
    record WeakAnd(List<QueryItem> children, int targetHits) implements QueryItem {
        public WeakAnd { children = List.copyOf(children); }
    }

    /** What kind of term a {@link Term} was sent as. */
    enum TermType { WORD, EXACT_STRING, INTEGER, FLOATING_POINT }

    /**
     * A term searched in an index or fieldset ("" for the default): a word, an exact string, or a number
     * (as text; numeric terms may be ranges "[a;b]", "&lt;a", "&gt;a"). Ranked unless the request says not to.
     * The unique id is the item's in the request (0 when the container assigned none), which rank properties such as
     * vespa.term.&lt;id&gt;.significance refer to; usePositionData false (the term annotation) makes rank features see
     * its matches without their positions, as proton then reads the term as a filter.
     */
    record Term(String index, String word, TermType type, int weight, boolean ranked, int uniqueId, boolean usePositionData) implements QueryItem {

        public Term(String index, String word, TermType type, int weight, boolean ranked, int uniqueId) {
            this(index, word, type, weight, ranked, uniqueId, true);
        }

        public Term(String index, String word, TermType type, int weight, boolean ranked) {
            this(index, word, type, weight, ranked, 0);
        }

    }

    /** The documents whose numeric attribute value lies in a range; a ranked term (weight, unique id) as other terms. */
    record Range(String index, double low, boolean lowInclusive, double high, boolean highInclusive, IntegerBounds integers,
                 int weight, boolean ranked, int uniqueId) implements QueryItem {

        public Range(String index, double low, boolean lowInclusive, double high, boolean highInclusive) {
            this(index, low, lowInclusive, high, highInclusive, null);
        }

        public Range(String index, double low, boolean lowInclusive, double high, boolean highInclusive, IntegerBounds integers) {
            this(index, low, lowInclusive, high, highInclusive, integers, 100, true, 0);
        }

        /** Whether a number lies in this range. */
        public boolean contains(double value) {
            return (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high);
        }

    }

    /** The exact bounds of a range the container sent as integers, which int64 attributes compare exactly. */
    record IntegerBounds(long low, boolean lowInclusive, long high, boolean highInclusive) {

        /** Whether a value is in these bounds. */
        public boolean contains(long value) {
            return (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high);
        }

    }

    /** The string attribute values that begin with a prefix (as the attribute's match mode compares: uncased folds case). */
    record Prefix(String index, String prefix, int weight, boolean ranked, int uniqueId) implements QueryItem {

        public Prefix(String index, String prefix, int weight, boolean ranked) { this(index, prefix, weight, ranked, 0); }

    }

    /**
     * The string attribute values within maxEditDistance (Levenshtein, over code points) of the word, whose first
     * prefixLockLength characters equal the word's; with prefixMatch, a value matches when one of its prefixes does.
     */
    record Fuzzy(String index, String word, int maxEditDistance, int prefixLockLength, boolean prefixMatch, int weight, boolean ranked,
                 int uniqueId) implements QueryItem {

        public Fuzzy(String index, String word, int maxEditDistance, int prefixLockLength, boolean prefixMatch, int weight, boolean ranked) {
            this(index, word, maxEditDistance, prefixLockLength, prefixMatch, weight, ranked, 0);
        }

    }

    /**
     * The string attribute values a regular expression matches anywhere in them (partial match, as proton's
     * {@code matches}), ignoring case when the attribute is uncased.
     */
    record Regexp(String index, String pattern, int weight, boolean ranked, int uniqueId) implements QueryItem {

        public Regexp(String index, String pattern, int weight, boolean ranked) { this(index, pattern, weight, ranked, 0); }

    }

    /** The words (not lowercased) in consecutive positions of an indexed field. */
    record Phrase(String index, List<String> words, int weight, boolean ranked, int uniqueId, boolean usePositionData) implements QueryItem {

        public Phrase { words = List.copyOf(words); }

        public Phrase(String index, List<String> words, int weight, boolean ranked, int uniqueId) { this(index, words, weight, ranked, uniqueId, true); }

        public Phrase(String index, List<String> words, int weight, boolean ranked) { this(index, words, weight, ranked, 0); }

    }

    /**
     * dotProduct: the documents holding any of the tokens; their raw score (rawScore) is the sum over the tokens they
     * hold of the token's weight times the document's weight of it.
     */
    record DotProduct(String index, List<String> tokens, List<Integer> weights, boolean ranked, int uniqueId, int weight) implements QueryItem {

        public DotProduct { tokens = List.copyOf(tokens); weights = List.copyOf(weights); }

        public DotProduct(String index, List<String> tokens, List<Integer> weights, boolean ranked, int uniqueId) {
            this(index, tokens, weights, ranked, uniqueId, 100);
        }

    }

    /**
     * wand (parallel weak and): of the documents holding any of the tokens, those whose dot product beats the running
     * threshold (see ai.dwell.runtime.match.ParallelWand); their raw score is the dot product.
     */
    record Wand(String index, List<String> tokens, List<Integer> weights, int targetHits, double scoreThreshold,
                double thresholdBoostFactor, boolean ranked, int uniqueId, int weight) implements QueryItem {

        public Wand { tokens = List.copyOf(tokens); weights = List.copyOf(weights); }

        public Wand(String index, List<String> tokens, List<Integer> weights, int targetHits, double scoreThreshold,
                    double thresholdBoostFactor, boolean ranked, int uniqueId) {
            this(index, tokens, weights, targetHits, scoreThreshold, thresholdBoostFactor, ranked, uniqueId, 100);
        }

    }

    /**
     * sameElement: the documents with one element of the array or map field (index) that all the children match, the
     * children's indexes being its struct fields (e.g. name, price; key, value).
     */
    record SameElement(String index, List<QueryItem> children) implements QueryItem {
        public SameElement { children = List.copyOf(children); }
    }

    /**
     * Documents whose field holds any of the terms (STRING_IN and NUMERIC_IN, and weightedSet: then with the tokens' weights,
     * which rank features read; an in gives each weight 1).
     */
    record In(String index, List<String> words, List<Integer> tokenWeights, int weight, boolean ranked, int uniqueId) implements QueryItem {

        public In {
            words = List.copyOf(words);
            tokenWeights = List.copyOf(tokenWeights);
            if ( ! tokenWeights.isEmpty() && tokenWeights.size() != words.size())
                throw new IllegalArgumentException(words.size() + " tokens but " + tokenWeights.size() + " weights");
        }

        /** An in, unranked: what matching uses internally for the tokens of other items. */
        public In(String index, List<String> words) { this(index, words, List.of(), 100, false, 0); }

        /** The weight of the i-th token: as the weightedSet gives it, 1 in an in. */
        public int tokenWeight(int i) { return tokenWeights.isEmpty() ? 1 : tokenWeights.get(i); }

    }

    /**
     * The targetHits documents whose vector in the field is closest to the query tensor, with the item's
     * search settings: approximateThreshold when the item sets it, distanceThreshold when positive.
     */
    record NearestNeighbor(String field, int uniqueId, String queryTensorName, int targetHits, int exploreAdditionalHits,
                           boolean allowApproximate, Optional<Double> approximateThreshold, double distanceThreshold,
                           int weight, boolean ranked) implements QueryItem {

        public NearestNeighbor(String field, int uniqueId, String queryTensorName, int targetHits, int exploreAdditionalHits,
                               boolean allowApproximate, Optional<Double> approximateThreshold, double distanceThreshold) {
            this(field, uniqueId, queryTensorName, targetHits, exploreAdditionalHits, allowApproximate, approximateThreshold, distanceThreshold, 100, true);
        }

    }

    /**
     * An item this content engine does not support, kept in the tree so that matching fails with this
     * message where it reaches it, as it did when the wire format was matched directly.
     */
    /**
     * Vespa's predicate item: the documents whose predicate field holds for these features ("key=value" features and
     * range features, each in the subqueries of its bitmap).
     */
    record Predicate(String index, List<ai.dwell.runtime.index.PredicateAssignment.Feature> features,
                     List<ai.dwell.runtime.index.PredicateAssignment.RangeFeature> ranges, int uniqueId) implements QueryItem {
        public Predicate { features = List.copyOf(features); ranges = List.copyOf(ranges); }
    }

    record Unsupported(String message) implements QueryItem {}

}
