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
        int count = to - from;
        if (k <= 0) return new int[0];
        if (k >= count) {
            int[] order = new int[count];
            for (int i = 0; i < count; i++) order[i] = from + i;
            sort(order, scores, 0, count - 1);
            return order;
        }
        if (count >= THRESHOLD_SELECT_FROM) {
            int[] best = bestByThreshold(scores, from, to, k);
            sort(best, scores, 0, k - 1);
            return best;
        }
        int[] order = new int[count];
        for (int i = 0; i < count; i++) order[i] = from + i;
        select(order, scores, 0, count - 1, k - 1);
        sort(order, scores, 0, k - 1);
        return java.util.Arrays.copyOf(order, k);
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
        long[] sample = new long[SAMPLE];
        for (int i = 0; i < SAMPLE; i++) sample[i] = orderedBits(scores[from + (int) ((long) i * count / SAMPLE)]);
        java.util.Arrays.sort(sample); // ascending
        int above = (int) Math.min(SAMPLE - 1, (long) k * SAMPLE / count * 5 / 4 + 8); // sampled scores at or above the threshold
        long threshold = sample[SAMPLE - 1 - above];
        int[] candidates = new int[Math.min(count, 2 * k + 64)];
        int found = 0;
        for (int i = from; i < to; i++) {
            if (orderedBits(scores[i]) < threshold) continue;
            if (found == candidates.length) candidates = java.util.Arrays.copyOf(candidates, Math.min(count, 2 * found));
            candidates[found++] = i;
        }
        if (found < k) { // the estimate was too high: all are candidates
            candidates = new int[count];
            for (int i = 0; i < count; i++) candidates[i] = from + i;
            found = count;
        }
        select(candidates, scores, 0, found - 1, k - 1);
        return java.util.Arrays.copyOf(candidates, k);
    }

    /** A long that orders as Double.compare orders the doubles. */
    private static long orderedBits(double score) {
        long bits = Double.doubleToLongBits(score);
        return bits ^ ((bits >> 63) & 0x7fffffffffffffffL);
    }

    /**
     * The best k positions of several lists, each in the order of {@link #descending}: the same positions in the
     * same order as {@link #top} over all of them, as no position is in two lists.
     */
    static int[] merge(int[][] lists, double[] scores, int k) {
        long total = 0;
        for (int[] list : lists) total += list.length;
        int[] merged = new int[(int) Math.min(k, total)];
        int[] heads = new int[lists.length];
        for (int m = 0; m < merged.length; m++) {
            int best = -1;
            for (int l = 0; l < lists.length; l++)
                if (heads[l] < lists[l].length && (best < 0 || before(lists[l][heads[l]], lists[best][heads[best]], scores))) best = l;
            merged[m] = lists[best][heads[best]++];
        }
        return merged;
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
