package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.QueryTerm;

import java.util.List;

/** Text-match features over the query terms searched in one indexed field. */
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

    /**
     * An APPROXIMATION of nativeRank (Vespa's nativeRank combines field match proximity, occurrence and
     * attribute match tables; this does not): the idf-weighted share of the query's text terms that
     * occur in the document, each counting tf/(tf+1), averaged over the given fields. In [0, 1].
     */
    static final class NativeRankApproximation extends ScalarNode {
        private final Bm25Like[] fields;

        NativeRankApproximation(List<TextIndex> indexes, List<QueryTerm> terms) {
            this.fields = indexes.stream().map(index -> new Bm25Like(index, terms)).toArray(Bm25Like[]::new);
        }

        @Override double number(int lid) {
            if (fields.length == 0) return 0;
            double sum = 0;
            for (Bm25Like field : fields) sum += field.share(lid);
            return sum / fields.length;
        }

        private static final class Bm25Like {
            private final TextIndex.Postings[] postings;
            private final double[] weights;
            private final double total;
            Bm25Like(TextIndex index, List<QueryTerm> terms) {
                List<QueryTerm> mine = terms.stream().filter(t -> t.isPlain() && t.field().equals(index.field())).toList();
                postings = new TextIndex.Postings[mine.size()];
                weights = new double[mine.size()];
                double sum = 0;
                for (int i = 0; i < mine.size(); i++) {
                    postings[i] = index.postings(mine.get(i).term());
                    int df = postings[i] == null ? 0 : postings[i].documentCount();
                    weights[i] = Math.log(1 + (index.documentCount() - df + 0.5) / (df + 0.5));
                    sum += weights[i];
                }
                total = sum;
            }
            double share(int lid) {
                if (total == 0) return 0;
                double score = 0;
                for (int i = 0; i < postings.length; i++) {
                    if (postings[i] == null) continue;
                    int tf = postings[i].positions(lid).length; // 0 where the term does not occur
                    score += weights[i] * tf / (tf + 1.0);
                }
                return score / total;
            }
        }
    }

}
