package ai.dwell.runtime.match;

import ai.dwell.runtime.index.MultiValueAttribute;

import java.util.BitSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.Predicate;

/**
 * Vespa's wand (proton's ParallelWeakAndSearch) on one content node: a document's score is the dot product of the
 * query tokens' weights and its weights of them; it matches when that score is above the threshold times the
 * threshold boost factor. The threshold starts at the item's scoreThreshold and rises to the lowest of the best
 * targetHits scores seen so far (0 until there are that many), updated after every 4 hits (proton's scores adjust
 * frequency). Documents are visited in local id order, so which of them match beyond the best targetHits depends
 * on that order, as in proton.
 */
final class ParallelWand {

    private static final int SCORES_ADJUST_FREQUENCY = 4;

    private ParallelWand() {}

    @SuppressWarnings("unchecked")
    static BitSet match(BitSet holding, MultiValueAttribute attribute, List<String> tokens, List<Integer> weights,
                        int targetHits, double scoreThreshold, double boost) {
        BitSet result = new BitSet();
        if (targetHits <= 0) return result;
        Predicate<Object>[] keys = new Predicate[tokens.size()];
        for (int t = 0; t < keys.length; t++) keys[t] = attribute.key(tokens.get(t));
        PriorityQueue<Long> best = new PriorityQueue<>(targetHits + 1);
        long[] pending = new long[SCORES_ADJUST_FREQUENCY];
        int pendingCount = 0;
        double threshold = Math.max(scoreThreshold, 0); // raised at once to the heap's lowest score, 0 while it is not full
        for (int lid = holding.nextSetBit(0); lid >= 0; lid = holding.nextSetBit(lid + 1)) {
            long score = 0;
            for (int t = 0; t < keys.length; t++) score += (long) weights.get(t) * attribute.weight(lid, keys[t]);
            if ( ! (score > threshold * boost)) continue;
            result.set(lid);
            pending[pendingCount++] = score;
            if (pendingCount == SCORES_ADJUST_FREQUENCY) {
                for (long s : pending) {
                    if (best.size() < targetHits) best.add(s);
                    else if (best.peek() < s) { best.add(s); best.poll(); }
                }
                pendingCount = 0;
                threshold = Math.max(threshold, best.size() == targetHits ? best.peek() : 0);
            }
        }
        return result;
    }

}
