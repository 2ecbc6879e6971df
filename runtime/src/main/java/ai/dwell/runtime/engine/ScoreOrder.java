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
        int[] order = new int[count];
        for (int i = 0; i < count; i++) order[i] = from + i;
        if (k >= count) {
            sort(order, scores, 0, count - 1);
            return order;
        }
        select(order, scores, 0, count - 1, k - 1);
        sort(order, scores, 0, k - 1);
        return java.util.Arrays.copyOf(order, k);
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
