package ai.dwell.runtime.rank;

import java.util.BitSet;

/**
 * Multi-phase ranking of the matches in one index: the first phase over all matches, the second phase
 * over the best rerank-count of them (the profile's vespa.hitcollector.heapsize, or the request's
 * override), all of that window in one block. Hits that were not reranked keep their first-phase order
 * below the reranked ones: their scores are shifted down so that the best of them is just below the
 * lowest second-phase score (Vespa rescales them linearly instead). Works on primitive arrays only.
 * Only as many of the best hits as the caller needs are put in order (a selection, not a full sort).
 */
final class Ranker {

    /** The best matches of one index (all, or the best ones asked for), best first: local ids and their relevance. */
    record Ranked(String documentType, int[] lids, double[] relevance, long firstPhaseNanos, long secondPhaseNanos, int reranked, int matched) {
        int size() { return lids.length; }
    }

    private Ranker() {}

    /** Ranks all matches, and returns them all in order. */
    static Ranked rank(String documentType, RankProgram program, BitSet matches, int rerankCount) {
        return rank(documentType, program, matches, rerankCount, Integer.MAX_VALUE);
    }

    /** Ranks all matches, and returns the best of them in order: at least wanted (when there are as many). */
    static Ranked rank(String documentType, RankProgram program, BitSet matches, int rerankCount, int wanted) {
        int n = matches.cardinality();
        int[] lids = new int[n];
        int i = 0;
        for (int lid = matches.nextSetBit(0); lid >= 0; lid = matches.nextSetBit(lid + 1)) lids[i++] = lid;
        double[] scores = new double[n];
        long start = System.nanoTime();
        program.firstPhase(lids, n, scores);
        long firstPhaseNanos = System.nanoTime() - start;
        int reranked = program.hasSecondPhase() ? Math.max(0, Math.min(rerankCount, n)) : 0;
        // the window, the best hit below it (for the shift), and what the caller wants
        int kept = (int) Math.min(n, Math.max((long) wanted, reranked + 1L));
        int[] order = ScoreOrder.top(scores, n, kept);
        int[] rankedLids = new int[kept];
        double[] relevance = new double[kept];
        long secondStart = System.nanoTime();
        if (reranked > 0) {
            int[] windowLids = new int[reranked];
            double[] windowFirst = new double[reranked];
            for (int r = 0; r < reranked; r++) {
                windowLids[r] = lids[order[r]];
                windowFirst[r] = scores[order[r]];
            }
            double[] second = new double[reranked];
            program.secondPhase(windowLids, windowFirst, reranked, second);
            int[] secondOrder = ScoreOrder.descending(second, reranked);
            double lowestSecond = Double.POSITIVE_INFINITY;
            for (int r = 0; r < reranked; r++) {
                rankedLids[r] = windowLids[secondOrder[r]];
                relevance[r] = second[secondOrder[r]];
                lowestSecond = Math.min(lowestSecond, relevance[r]);
            }
            if (reranked < kept) {
                double bestRest = scores[order[reranked]];
                double shift = bestRest >= lowestSecond ? lowestSecond - bestRest - Math.ulp(lowestSecond) : 0;
                for (int r = reranked; r < kept; r++) {
                    rankedLids[r] = lids[order[r]];
                    relevance[r] = scores[order[r]] + shift;
                }
            }
        }
        else {
            for (int r = 0; r < kept; r++) {
                rankedLids[r] = lids[order[r]];
                relevance[r] = scores[order[r]];
            }
        }
        return new Ranked(documentType, rankedLids, relevance, firstPhaseNanos, reranked > 0 ? System.nanoTime() - secondStart : 0, reranked, n);
    }

}
