package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.QueryTerm;

import java.util.List;

/**
 * rawScore(name) of a weighted set index field: the raw score the query's dotProduct and wand items on it give a
 * document, the sum over their tokens of the token's weight times the term's weight in the document (its element's
 * weight), 0 for a document holding none, as proton's dot product search over an index field sets it.
 */
final class TextRawScoreNode extends ScalarNode {

    private final TextIndex.Postings[] postings; // null where no document has the token
    private final long[] weights;

    TextRawScoreNode(TextIndex index, List<QueryTerm> tokens) {
        this.postings = new TextIndex.Postings[tokens.size()];
        this.weights = new long[tokens.size()];
        for (int t = 0; t < tokens.size(); t++) {
            postings[t] = index.postings(tokens.get(t).term());
            weights[t] = tokens.get(t).weight();
        }
    }

    @Override
    double number(int lid) {
        long score = 0;
        for (int t = 0; t < postings.length; t++)
            if (postings[t] != null) score += weights[t] * postings[t].weight(lid);
        return score;
    }

}
