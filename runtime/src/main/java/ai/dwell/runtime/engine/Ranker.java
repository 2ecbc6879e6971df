package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.RankProgram;

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

    /**
     * Ranks all matches on as many threads as there are programs (one program per thread, compiled for the same
     * query), and returns the best of them in order, exactly as on one thread. The matches are the first n of lids, in
     * increasing order (not changed). They are split into
     * contiguous ranges of local ids; each thread computes the first phase of its range and selects its best,
     * those are merged, and the rerank window is split over the threads for the second phase, as proton
     * splits the document id space between a query's threads.
     */
    static Ranked rank(String documentType, RankProgram[] programs, int[] lids, int n, int rerankCount, int wanted, PartitionRunner runner) {
        double[] scores = new double[n];
        RankProgram program = programs[0];
        int reranked = program.hasSecondPhase() ? Math.max(0, Math.min(rerankCount, n)) : 0;
        // the window, the best hit below it (for the shift), and what the caller wants
        int kept = (int) Math.min(n, Math.max((long) wanted, reranked + 1L));
        int returned = (int) Math.min(n, Math.max(0, wanted)); // hits put in order for the caller
        int threads = Math.max(1, Math.min(programs.length, n));
        long start = System.nanoTime();
        int[] best; // the best kept positions, in no particular order
        if (threads == 1) {
            program.firstPhase(lids, n, scores);
            best = ScoreOrder.best(scores, 0, n, kept);
        }
        else {
            int[][] bestOfRange = new int[threads][];
            runner.run(threads, p -> {
                int from = (int) ((long) n * p / threads), to = (int) ((long) n * (p + 1) / threads);
                programs[p].firstPhase(lids, from, to - from, scores);
                bestOfRange[p] = ScoreOrder.best(scores, from, to, kept);
            });
            int total = 0;
            for (int[] range : bestOfRange) total += range.length;
            best = new int[total];
            for (int p = 0, at = 0; p < threads; at += bestOfRange[p].length, p++) System.arraycopy(bestOfRange[p], 0, best, at, bestOfRange[p].length);
            ScoreOrder.bestFirst(best, scores, total, kept);
        }
        // the window first (unordered), then the hits below it in first-phase order
        ScoreOrder.bestFirst(best, scores, kept, reranked);
        ScoreOrder.sortRange(best, scores, reranked, Math.min(kept, Math.max(reranked, returned)));
        long firstPhaseNanos = System.nanoTime() - start;
        int[] rankedLids = new int[returned];
        double[] relevance = new double[returned];
        long secondStart = System.nanoTime();
        if (reranked > 0) {
            int[] windowLids = new int[reranked];
            double[] windowFirst = new double[reranked];
            for (int r = 0; r < reranked; r++) {
                windowLids[r] = lids[best[r]];
                windowFirst[r] = scores[best[r]];
            }
            double[] second = new double[reranked];
            int secondThreads = Math.min(threads, reranked);
            if (secondThreads == 1) program.secondPhase(windowLids, windowFirst, reranked, second);
            else runner.run(secondThreads, p -> {
                int from = (int) ((long) reranked * p / secondThreads), to = (int) ((long) reranked * (p + 1) / secondThreads);
                programs[p].secondPhase(windowLids, windowFirst, from, to - from, second);
            });
            // ties in the second phase keep first-phase order, as when the window was ranked by it
            int[] secondOrder = ScoreOrder.topReranked(second, best, scores, reranked, returned);
            for (int r = 0; r < secondOrder.length; r++) {
                rankedLids[r] = windowLids[secondOrder[r]];
                relevance[r] = second[secondOrder[r]];
            }
            if (reranked < returned) {
                double lowestSecond = Double.POSITIVE_INFINITY;
                for (int r = 0; r < reranked; r++) lowestSecond = Math.min(lowestSecond, second[r]);
                double bestRest = scores[best[reranked]];
                double shift = bestRest >= lowestSecond ? lowestSecond - bestRest - Math.ulp(lowestSecond) : 0;
                for (int r = reranked; r < returned; r++) {
                    rankedLids[r] = lids[best[r]];
                    relevance[r] = scores[best[r]] + shift;
                }
            }
        }
        else {
            for (int r = 0; r < returned; r++) {
                rankedLids[r] = lids[best[r]];
                relevance[r] = scores[best[r]];
            }
        }
        return new Ranked(documentType, rankedLids, relevance, firstPhaseNanos, reranked > 0 ? System.nanoTime() - secondStart : 0, reranked, n);
    }

}
