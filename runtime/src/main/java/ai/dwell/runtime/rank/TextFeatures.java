package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.QueryTerm;

import java.util.List;

/** bm25, over the query terms searched in one indexed field (the native rank features are in {@link NativeRankFeatures}). */
final class TextFeatures {

    private TextFeatures() {}

    /**
     * bm25(field), as Vespa defines it: the sum over the field's query terms of
     * idf · tf·(k1+1) / (tf + k1·(1 − b + b·fieldLength/averageFieldLength)), k1 = 1.2, b = 0.75,
     * idf = log(1 + (N − n + 0.5)/(n + 0.5)).
     */
    static final class Bm25 extends ScalarNode {
        private final TextIndex index;
        private final TextIndex.Postings[] postings;
        private final double[] idf;
        private final double k1, b, averageLength;

        Bm25(TextIndex index, List<QueryTerm> terms, double k1, double b) {
            this.index = index;
            this.k1 = k1;
            this.b = b;
            this.averageLength = Math.max(1e-9, index.averageFieldLength());
            List<QueryTerm> mine = terms.stream().filter(t -> t.isPlain() && t.field().equals(index.field())).toList();
            this.postings = new TextIndex.Postings[mine.size()];
            this.idf = new double[mine.size()];
            int n = index.documentCount();
            for (int i = 0; i < mine.size(); i++) {
                postings[i] = index.postings(mine.get(i).term());
                int df = postings[i] == null ? 0 : postings[i].documentCount();
                idf[i] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
            }
        }

        @Override double number(int lid) {
            double score = 0;
            double norm = k1 * (1 - b + b * index.fieldLength(lid) / averageLength);
            for (int i = 0; i < postings.length; i++) {
                if (postings[i] == null) continue;
                int tf = postings[i].positions(lid).length; // 0 where the term does not occur
                score += idf[i] * tf * (k1 + 1) / (tf + norm);
            }
            return score;
        }
    }

}
