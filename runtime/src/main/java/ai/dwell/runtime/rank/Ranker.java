package ai.dwell.runtime.rank;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Multi-phase ranking of the matches in one index: the first phase over all matches, the second phase
 * over the best rerank-count of them (the profile's vespa.hitcollector.heapsize, or the request's
 * override). Hits that were not reranked keep their first-phase order below the reranked ones: their
 * scores are shifted down so that the best of them is just below the lowest second-phase score
 * (Vespa rescales them linearly instead).
 */
final class Ranker {

    private Ranker() {}

    static List<RankedHit> rank(String documentType, RankProgram program, BitSet matches, int rerankCount) {
        int n = matches.cardinality();
        int[] lids = new int[n];
        double[] scores = new double[n];
        int i = 0;
        for (int lid = matches.nextSetBit(0); lid >= 0; lid = matches.nextSetBit(lid + 1)) {
            lids[i] = lid;
            scores[i++] = program.firstPhase(lid);
        }
        Integer[] order = byScore(scores);
        List<RankedHit> hits = new ArrayList<>(n);
        if ( ! program.hasSecondPhase() || rerankCount <= 0) {
            for (Integer k : order) hits.add(new RankedHit(documentType, lids[k], scores[k]));
            return hits;
        }
        int reranked = Math.min(rerankCount, n);
        double[] second = new double[reranked];
        double lowestSecond = Double.POSITIVE_INFINITY;
        for (int r = 0; r < reranked; r++) {
            int k = order[r];
            second[r] = program.secondPhase(lids[k], scores[k]);
            lowestSecond = Math.min(lowestSecond, second[r]);
        }
        Integer[] secondOrder = byScore(second);
        for (Integer r : secondOrder) hits.add(new RankedHit(documentType, lids[order[r]], second[r]));
        if (reranked < n) {
            double bestRest = scores[order[reranked]];
            double shift = bestRest >= lowestSecond ? lowestSecond - bestRest - Math.ulp(lowestSecond) : 0;
            for (int r = reranked; r < n; r++) hits.add(new RankedHit(documentType, lids[order[r]], scores[order[r]] + shift));
        }
        return hits;
    }

    private static Integer[] byScore(double[] scores) {
        Integer[] order = new Integer[scores.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Double.compare(scores[b], scores[a]));
        return order;
    }

}
