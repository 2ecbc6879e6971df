package ai.dwell.runtime.match;

import java.util.BitSet;
import java.util.PriorityQueue;

/**
 * Vespa's weakAnd (WAND) on one content node, as proton's WeakAndSearch with its BM25 term scorer:
 * each child (term) scores 10⁶ · weight · idf + 1, where idf = log(1 + (N − n + 0.5)/(n + 0.5)) with
 * n the child's hit count and N the document id limit; a document matches when the sum of the scores
 * of the children it matches is at least the current threshold. The threshold starts at 1 and rises to
 * the lowest of the best targetHits scores seen so far, updated after every 4 hits (proton's scores
 * adjust frequency). Documents are visited in local id order, so which of them match depends on that
 * order, as in proton. Only documents in the candidate set are visited: the documents the rest of an
 * enclosing AND allows, as proton only unpacks (and so scores) documents the whole query matches.
 * Stop-word handling (vespa.matching.weakand.*) is not implemented; its settings are refused where read.
 */
final class WeakAnd {

    private static final int SCORES_ADJUST_FREQUENCY = 4;
    private static final double TERM_SCORE_FACTOR = 1_000_000.0;

    private WeakAnd() {}

    /** Returns the matches among candidates, given each child's hits and weight. */
    static BitSet match(BitSet[] children, int[] weights, int targetHits, int docIdLimit, BitSet candidates) {
        BitSet result = new BitSet();
        if (targetHits <= 0 || children.length == 0) return result;
        long[] scores = new long[children.length];
        BitSet union = new BitSet();
        for (int i = 0; i < children.length; i++) {
            scores[i] = (long) (TERM_SCORE_FACTOR * weights[i] * idf(children[i].cardinality(), docIdLimit)) + 1;
            union.or(children[i]);
        }
        union.and(candidates);
        PriorityQueue<Long> best = new PriorityQueue<>(targetHits + 1);
        long[] pending = new long[SCORES_ADJUST_FREQUENCY];
        int pendingCount = 0;
        long threshold = 1;
        for (int lid = union.nextSetBit(0); lid >= 0; lid = union.nextSetBit(lid + 1)) {
            long score = 0;
            for (int i = 0; i < children.length; i++) if (children[i].get(lid)) score += scores[i];
            if (score < threshold) continue;
            result.set(lid);
            pending[pendingCount++] = score;
            if (pendingCount == SCORES_ADJUST_FREQUENCY) {
                for (long s : pending) {
                    if (best.size() < targetHits) best.add(s);
                    else if (best.peek() < s) { best.add(s); best.poll(); }
                }
                pendingCount = 0;
                if (best.size() == targetHits) threshold = Math.max(threshold, best.peek());
            }
        }
        return result;
    }

    /** Bm25Utils::calculate_inverse_document_frequency. */
    static double idf(double hits, double documents) {
        double count = Math.max(1.0, documents);
        double frequency = Math.min(Math.max(1.0, hits), count);
        return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
    }

}
