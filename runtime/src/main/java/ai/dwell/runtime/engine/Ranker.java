package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.RankProgram;
import ai.dwell.runtime.rank.RankScoreDropLimits;

/**
 * Multi-phase ranking of the matches in one index, as proton's match thread and hit collector do it: the first
 * phase over all matches (a score that is NaN or infinite counts as -infinity), the first-phase
 * rank-score-drop-limit (a match scoring at or below it is no hit, and is not counted), the second phase over the
 * best rerank-count of what is left (the profile's vespa.hitcollector.heapsize, or the request's override), all of
 * that window in one block. Hits that were not reranked keep their first-phase order below the reranked ones: when
 * the window's lowest first-phase score is above its lowest second-phase score their scores are rescaled linearly,
 * mapping the window's first-phase range onto its second-phase range (each at least 1), as searchlib's
 * FirstPhaseRescorer. Then the second-phase rank-score-drop-limit drops every hit whose final score is at or below it.
 * Works on primitive arrays only, which the thread keeps for its next query ({@link RankScratch}). Only as many of the best hits as the caller needs are put in order (a selection,
 * not a full sort).
 */
final class Ranker {

    /**
     * The best matches of one index (all, or the best ones asked for), best first: local ids and their relevance;
     * dropped is how many matches the rank-score-drop-limits took out (they are neither hits nor counted).
     */
    record Ranked(String documentType, int[] lids, double[] relevance, long firstPhaseNanos, long secondPhaseNanos, int reranked, int matched, int dropped) {
        int size() { return lids.length; }
    }

    private Ranker() {}

    static Ranked rank(String documentType, RankProgram[] programs, int[] lids, int n, int rerankCount, int wanted, PartitionRunner runner) {
        return rank(documentType, programs, lids, n, rerankCount, wanted, RankScoreDropLimits.NONE, runner);
    }

    /**
     * Ranks all matches on as many threads as there are programs (one program per thread, compiled for the same
     * query), and returns the best of them in order, exactly as on one thread. The matches are the first n of lids, in
     * increasing order (not changed). They are split into
     * contiguous ranges of local ids; each thread computes the first phase of its range and selects its best,
     * those are merged, and the rerank window is split over the threads for the second phase, as proton
     * splits the document id space between a query's threads.
     */
    static Ranked rank(String documentType, RankProgram[] programs, int[] lids, int n, int rerankCount, int wanted,
                       RankScoreDropLimits limits, PartitionRunner runner) {
        RankScratch scratch = RankScratch.current();
        double[] scores = scratch.scores(n);
        RankProgram program = programs[0];
        boolean dropFirst = ! limits.keepsFirstPhase();
        int threads = Math.max(1, Math.min(programs.length, n));
        long start = System.nanoTime();
        int[] bestOfAll = null; // the best kept positions, in no particular order, when the threads selected them
        if (threads == 1) {
            program.firstPhase(lids, n, scores);
            finite(scores, 0, n);
        }
        else {
            int kept = kept(n, program, rerankCount, wanted);
            int[][] bestOfRange = new int[threads][];
            runner.run(threads, p -> {
                int from = (int) ((long) n * p / threads), to = (int) ((long) n * (p + 1) / threads);
                programs[p].firstPhase(lids, from, to - from, scores);
                finite(scores, from, to);
                if ( ! dropFirst) bestOfRange[p] = ScoreOrder.best(scores, from, to, kept);
            });
            if ( ! dropFirst) {
                int total = 0;
                for (int[] range : bestOfRange) total += range.length;
                bestOfAll = new int[total];
                for (int p = 0, at = 0; p < threads; at += bestOfRange[p].length, p++) System.arraycopy(bestOfRange[p], 0, bestOfAll, at, bestOfRange[p].length);
                ScoreOrder.bestFirst(bestOfAll, scores, total, kept);
            }
        }
        int m = n; // the matches that are hits: all, or those above the first-phase drop limit, moved to the front
        int[] hitLids = lids;
        if (dropFirst) {
            hitLids = scratch.hitLids(n);
            m = 0;
            for (int i = 0; i < n; i++) {
                if ( ! (scores[i] <= limits.firstPhase())) {
                    hitLids[m] = lids[i];
                    scores[m++] = scores[i];
                }
            }
        }
        int reranked = program.hasSecondPhase() ? Math.max(0, Math.min(rerankCount, m)) : 0;
        // the window, the best hit below it (for the rescaling), and what the caller wants
        int kept = kept(m, program, rerankCount, wanted);
        int returned = (int) Math.min(m, Math.max(0, wanted)); // hits put in order for the caller
        int[] best = bestOfAll != null ? bestOfAll : ScoreOrder.best(scores, 0, m, kept);
        // the window first (unordered), then the hits below it in first-phase order
        ScoreOrder.bestFirst(best, scores, kept, reranked);
        ScoreOrder.sortRange(best, scores, reranked, Math.min(kept, Math.max(reranked, returned)));
        long firstPhaseNanos = System.nanoTime() - start;
        int[] rankedLids = new int[returned];
        double[] relevance = new double[returned];
        long secondStart = System.nanoTime();
        double scale = 1, adjust = 0; // the rescaling of the hits below the window: score * scale - adjust
        double[] second = null;
        if (reranked > 0) {
            int[] windowLids = scratch.windowLids(reranked);
            double[] windowFirst = scratch.windowFirst(reranked);
            for (int r = 0; r < reranked; r++) {
                windowLids[r] = hitLids[best[r]];
                windowFirst[r] = scores[best[r]];
            }
            second = scratch.second(reranked);
            double[] secondScores = second;
            int secondThreads = Math.min(threads, reranked);
            if (secondThreads == 1) program.secondPhase(windowLids, windowFirst, reranked, second);
            else runner.run(secondThreads, p -> {
                int from = (int) ((long) reranked * p / secondThreads), to = (int) ((long) reranked * (p + 1) / secondThreads);
                programs[p].secondPhase(windowLids, windowFirst, from, to - from, secondScores);
            });
            // ties in the second phase keep first-phase order, as when the window was ranked by it
            int[] secondOrder = ScoreOrder.topReranked(second, best, scores, reranked, returned);
            for (int r = 0; r < secondOrder.length; r++) {
                rankedLids[r] = windowLids[secondOrder[r]];
                relevance[r] = second[secondOrder[r]];
            }
            double firstLow = Double.MAX_VALUE, firstHigh = -Double.MAX_VALUE, secondLow = Double.MAX_VALUE, secondHigh = -Double.MAX_VALUE;
            for (int r = 0; r < reranked; r++) { // as std::min and std::max: a NaN second-phase score is passed over
                firstLow = windowFirst[r] < firstLow ? windowFirst[r] : firstLow;
                firstHigh = firstHigh < windowFirst[r] ? windowFirst[r] : firstHigh;
                secondLow = second[r] < secondLow ? second[r] : secondLow;
                secondHigh = secondHigh < second[r] ? second[r] : secondHigh;
            }
            if (firstLow > secondLow) {
                scale = Math.max(1.0, secondHigh - secondLow) / Math.max(1.0, firstHigh - firstLow);
                adjust = firstLow * scale - secondLow;
            }
            for (int r = reranked; r < returned; r++) {
                rankedLids[r] = hitLids[best[r]];
                relevance[r] = scores[best[r]] * scale - adjust;
            }
        }
        else {
            for (int r = 0; r < returned; r++) {
                rankedLids[r] = hitLids[best[r]];
                relevance[r] = scores[best[r]];
            }
        }
        int dropped = n - m;
        if ( ! limits.keepsSecondPhase()) {
            double limit = limits.secondPhase();
            dropped += droppedBySecondLimit(scores, m, best, second, reranked, scale, adjust, limit);
            int hits = 0;
            for (int r = 0; r < returned; r++) {
                if ( ! (relevance[r] <= limit)) {
                    rankedLids[hits] = rankedLids[r];
                    relevance[hits++] = relevance[r];
                }
            }
            if (hits < returned) {
                rankedLids = java.util.Arrays.copyOf(rankedLids, hits);
                relevance = java.util.Arrays.copyOf(relevance, hits);
            }
        }
        return new Ranked(documentType, rankedLids, relevance, firstPhaseNanos, reranked > 0 ? System.nanoTime() - secondStart : 0, reranked, n, dropped);
    }

    /** How many of the best hits are selected: the window, the best hit below it, and what the caller wants. */
    private static int kept(int hits, RankProgram program, int rerankCount, int wanted) {
        int reranked = program.hasSecondPhase() ? Math.max(0, Math.min(rerankCount, hits)) : 0;
        return (int) Math.min(hits, Math.max((long) wanted, reranked + 1L));
    }

    /** proton's match thread: a first-phase score that is NaN or infinite is -infinity. */
    private static void finite(double[] scores, int from, int to) {
        for (int i = from; i < to; i++) if ( ! Double.isFinite(scores[i])) scores[i] = Double.NEGATIVE_INFINITY;
    }

    /** The hits whose final score is at or below the second-phase limit: reranked ones by their second-phase score, the others rescaled. */
    private static int droppedBySecondLimit(double[] scores, int hits, int[] best, double[] second, int reranked, double scale, double adjust, double limit) {
        int dropped = 0;
        for (int i = 0; i < hits; i++) if (scores[i] * scale - adjust <= limit) dropped++;
        for (int r = 0; r < reranked; r++) {
            if (scores[best[r]] * scale - adjust <= limit) dropped--; // counted above as if not reranked
            if (second[r] <= limit) dropped++;
        }
        return dropped;
    }

}
