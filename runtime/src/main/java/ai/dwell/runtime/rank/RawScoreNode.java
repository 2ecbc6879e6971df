package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.QueryTerm;

import java.util.List;
import java.util.function.Predicate;

/**
 * rawScore(name): the raw score the query's dotProduct and wand items on a field give a document, the sum over their
 * tokens of the token's weight times the document's weight of it, 0 for a document holding none, as proton's dot
 * product search sets it. The document's weight of a token: in a multi-value attribute, the element's weight in a
 * weighted set or its occurrences in an array; in a weighted set index field, the term's element weight.
 */
final class RawScoreNode extends ScalarNode {

    /** The document's weight of token t of the query. */
    @FunctionalInterface
    interface DocumentWeights {
        long weight(int token, int lid);
    }

    private final DocumentWeights documentWeights;
    private final long[] weights;

    private RawScoreNode(DocumentWeights documentWeights, List<QueryTerm> tokens) {
        this.documentWeights = documentWeights;
        this.weights = tokens.stream().mapToLong(QueryTerm::weight).toArray();
    }

    /** Of a multi-value attribute. */
    static RawScoreNode of(MultiValueAttribute attribute, List<QueryTerm> tokens) {
        @SuppressWarnings("unchecked")
        Predicate<Object>[] keys = tokens.stream().map(token -> attribute.key(token.term())).toArray(Predicate[]::new);
        return new RawScoreNode((t, lid) -> attribute.weight(lid, keys[t]), tokens);
    }

    /** Of a weighted set index field. */
    static RawScoreNode of(TextIndex index, List<QueryTerm> tokens) {
        TextIndex.Postings[] postings = tokens.stream().map(token -> index.postings(token.term())).toArray(TextIndex.Postings[]::new);
        return new RawScoreNode((t, lid) -> postings[t] == null ? 0 : postings[t].weight(lid), tokens); // null: no document has it
    }

    @Override
    double number(int lid) {
        long score = 0;
        for (int t = 0; t < weights.length; t++) score += weights[t] * documentWeights.weight(t, lid);
        return score;
    }

}
