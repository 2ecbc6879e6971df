package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.match.QueryTerm;

import java.util.List;
import java.util.function.Predicate;

/**
 * rawScore(name) of a multi-value attribute: the raw score the query's dotProduct items on it give a document, the
 * sum over their tokens of the token's weight times the document's weight of it (the element's weight in a weighted
 * set, its occurrences in an array), 0 for a document holding none, as proton's dot product search sets it.
 */
final class RawScoreNode extends ScalarNode {

    private final MultiValueAttribute attribute;
    private final Predicate<Object>[] keys;
    private final long[] weights;

    @SuppressWarnings("unchecked")
    RawScoreNode(MultiValueAttribute attribute, List<QueryTerm> tokens) {
        this.attribute = attribute;
        this.keys = new Predicate[tokens.size()];
        this.weights = new long[tokens.size()];
        for (int t = 0; t < tokens.size(); t++) {
            keys[t] = attribute.key(tokens.get(t).term());
            weights[t] = tokens.get(t).weight();
        }
    }

    @Override
    double number(int lid) {
        long score = 0;
        for (int t = 0; t < keys.length; t++) score += weights[t] * attribute.weight(lid, keys[t]);
        return score;
    }

}
