package ai.dwell.runtime.engine;

/**
 * Sorts positions by score, best first, ties by position: a quicksort on primitive arrays, so that
 * ordering the matches of a query boxes nothing.
 */
public final class ScoreOrder {

    private static final int INSERTION_SORT_BELOW = 16;

    private ScoreOrder() {}

    /** Returns positions 0..count-1 ordered by scores, highest first, equal scores in position order. */
    public static int[] descending(double[] scores, int count) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) order[i] = i;
        sort(order, scores, 0, count - 1);
        return order;
    }

    /**
     * Returns the first k positions of {@link #descending} (all when k >= count): a selection that puts the
     * best k first, then a sort of those k only, so that a query that needs the top of many matches does not
     * sort them all.
     */
    static int[] top(double[] scores, int count, int k) { return top(scores, 0, count, k); }

    /** The best k positions of from..to-1 (all of them when k >= to - from), in the order of {@link #descending}. */
    static int[] top(double[] scores, int from, int to, int k) {
        int[] best = best(scores, from, to, k);
        sortRange(best, scores, 0, best.length);
        return best;
    }

    /**
     * The best k positions of from..to-1 in no particular order (all of them when k >= to - from): what a rerank
     * window needs, which is a set, not an order.
     */
    static int[] best(double[] scores, int from, int to, int k) {
        int count = to - from;
        if (k <= 0) return new int[0];
        if (k >= count) {
            int[] all = new int[count];
            for (int i = 0; i < count; i++) all[i] = from + i;
            return all;
        }
        if (count >= THRESHOLD_SELECT_FROM) return bestByThreshold(scores, from, to, k);
        int[] order = new int[count];
        for (int i = 0; i < count; i++) order[i] = from + i;
        select(order, scores, 0, count - 1, k - 1);
        return java.util.Arrays.copyOf(order, k);
    }

    /** Reorders positions[0..count-1] so that the first k of them are the best k (in no particular order). */
    static void bestFirst(int[] positions, double[] scores, int count, int k) {
        if (k > 0 && k < count) select(positions, scores, 0, count - 1, k - 1);
    }

    /** Puts positions[from..to-1] in the order of {@link #descending}. */
    static void sortRange(int[] positions, double[] scores, int from, int to) {
        if (to - from > 1) sort(positions, scores, from, to - 1);
    }

    /**
     * The best k indexes r of 0..count-1 in order: by second[r] descending (as Double.compare orders), ties by the
     * order of {@link #descending} of the positions window[r] in first. This is how a rerank window is ordered
     * after its second phase; it orders only the k it returns.
     */
    static int[] topReranked(double[] second, int[] window, double[] first, int count, int k) {
        k = Math.max(0, Math.min(k, count));
        int[] order = new int[count];
        for (int r = 0; r < count; r++) order[r] = r;
        if (k == 0) return order.length == 0 ? order : new int[0];
        if (k < count) selectReranked(order, second, window, first, 0, count - 1, k - 1);
        sortReranked(order, second, window, first, 0, k - 1);
        return k == count ? order : java.util.Arrays.copyOf(order, k);
    }

    private static void selectReranked(int[] order, double[] second, int[] window, double[] first, int low, int high, int last) {
        while (high - low >= INSERTION_SORT_BELOW) {
            long split = partitionReranked(order, second, window, first, low, high);
            int i = (int) (split >>> 32), j = (int) split;
            if (last <= j) high = j;
            else if (last >= i) low = i;
            else return;
        }
        sortReranked(order, second, window, first, low, high);
    }

    private static void sortReranked(int[] order, double[] second, int[] window, double[] first, int low, int high) {
        while (high - low >= INSERTION_SORT_BELOW) {
            long split = partitionReranked(order, second, window, first, low, high);
            int i = (int) (split >>> 32), j = (int) split;
            if (j - low < high - i) { sortReranked(order, second, window, first, low, j); low = i; }
            else { sortReranked(order, second, window, first, i, high); high = j; }
        }
        for (int i = low + 1; i <= high; i++) {
            int r = order[i], j = i - 1;
            while (j >= low && beforeReranked(r, order[j], second, window, first)) { order[j + 1] = order[j]; j--; }
            order[j + 1] = r;
        }
    }

    private static long partitionReranked(int[] order, double[] second, int[] window, double[] first, int low, int high) {
        int pivot = order[(low + high) >>> 1];
        int i = low, j = high;
        while (i <= j) {
            while (beforeReranked(order[i], pivot, second, window, first)) i++;
            while (beforeReranked(pivot, order[j], second, window, first)) j--;
            if (i <= j) { int t = order[i]; order[i++] = order[j]; order[j--] = t; }
        }
        return ((long) i << 32) | (j & 0xffffffffL);
    }

    private static boolean beforeReranked(int a, int b, double[] second, int[] window, double[] first) {
        int bySecond = Double.compare(second[b], second[a]);
        return bySecond < 0 || bySecond == 0 && a != b && before(window[a], window[b], first);
    }

    /** From this many scores, the best are first narrowed down to candidates above an estimated threshold. */
    private static final int THRESHOLD_SELECT_FROM = 4096;

    /** Scores sampled to estimate the threshold. */
    private static final int SAMPLE = 1024;

    /**
     * The best k of from..to-1 (k less than their count), unordered: a threshold is estimated from
     * an evenly spread sample of the scores (a little below where the k-th best would fall), the positions whose
     * score is at or above it are collected in one pass, and if there are at least k of them the best k are selected
     * among those few (they must be among them); otherwise among all. Scores compare as Double.compare orders them
     * (-0.0 before 0.0, NaN above everything), ties by position, exactly as {@link #descending}.
     */
    private static int[] bestByThreshold(double[] scores, int from, int to, int k) {
        int count = to - from;
        RankScratch scratch = RankScratch.current(); // this thread's: a partition of a query runs it on a worker
        long[] sample = scratch.sample(SAMPLE);
        for (int i = 0; i < SAMPLE; i++) sample[i] = orderedBits(scores[from + (int) ((long) i * count / SAMPLE)]);
        java.util.Arrays.sort(sample, 0, SAMPLE); // ascending
        int above = (int) Math.min(SAMPLE - 1, (long) k * SAMPLE / count * 5 / 4 + 8); // sampled scores at or above the threshold
        long threshold = sample[SAMPLE - 1 - above];
        int[] candidates = scratch.candidates(Math.min(count, 2 * k + 64));
        int found = 0;
        for (int i = from; i < to; i++) {
            if (orderedBits(scores[i]) < threshold) continue;
            if (found == candidates.length) candidates = java.util.Arrays.copyOf(candidates, Math.min(count, 2 * found));
            candidates[found++] = i;
        }
        if (found < k) { // the estimate was too high: all are candidates
            candidates = scratch.candidates(count);
            for (int i = 0; i < count; i++) candidates[i] = from + i;
            found = count;
        }
        scratch.keepCandidates(candidates);
        select(candidates, scores, 0, found - 1, k - 1);
        return java.util.Arrays.copyOf(candidates, k);
    }

    /** A long that orders as Double.compare orders the doubles. */
    private static long orderedBits(double score) {
        long bits = Double.doubleToLongBits(score);
        return bits ^ ((bits >> 63) & 0x7fffffffffffffffL);
    }

    /** Reorders order[low..high] so that the positions before and at index last are the best ones in that range. */
    private static void select(int[] order, double[] scores, int low, int high, int last) {
        while (high - low >= INSERTION_SORT_BELOW) {
            long split = partition(order, scores, low, high);
            int i = (int) (split >>> 32), j = (int) split;
            if (last <= j) high = j;
            else if (last >= i) low = i;
            else return; // between j and i: only the pivot's equals, in place
        }
        sort(order, scores, low, high);
    }

    private static void sort(int[] order, double[] scores, int low, int high) {
        while (high - low >= INSERTION_SORT_BELOW) {
            long split = partition(order, scores, low, high);
            int i = (int) (split >>> 32), j = (int) split;
            if (j - low < high - i) { sort(order, scores, low, j); low = i; }
            else { sort(order, scores, i, high); high = j; }
        }
        for (int i = low + 1; i <= high; i++) {
            int position = order[i], j = i - 1;
            while (j >= low && before(position, order[j], scores)) { order[j + 1] = order[j]; j--; }
            order[j + 1] = position;
        }
    }

    /**
     * Hoare partition of order[low..high] around its middle element: after it, everything at or before j
     * goes before or ties the pivot, everything at or after i after or ties it. Returns i and j packed in a long.
     */
    private static long partition(int[] order, double[] scores, int low, int high) {
        int pivot = order[(low + high) >>> 1];
        int i = low, j = high;
        while (i <= j) {
            while (before(order[i], pivot, scores)) i++;
            while (before(pivot, order[j], scores)) j--;
            if (i <= j) { int t = order[i]; order[i++] = order[j]; order[j--] = t; }
        }
        return ((long) i << 32) | (j & 0xffffffffL);
    }

    /** Whether position a goes before position b (as Double.compare orders scores, descending). */
    private static boolean before(int a, int b, double[] scores) {
        int byScore = Double.compare(scores[b], scores[a]);
        return byScore < 0 || byScore == 0 && a < b;
    }

}
