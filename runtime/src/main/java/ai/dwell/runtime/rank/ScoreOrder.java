package ai.dwell.runtime.rank;

/**
 * Sorts positions by score, best first, ties by position: a quicksort on primitive arrays, so that
 * ordering the matches of a query boxes nothing.
 */
final class ScoreOrder {

    private static final int INSERTION_SORT_BELOW = 16;

    private ScoreOrder() {}

    /** Returns positions 0..count-1 ordered by scores, highest first, equal scores in position order. */
    static int[] descending(double[] scores, int count) {
        int[] order = new int[count];
        for (int i = 0; i < count; i++) order[i] = i;
        sort(order, scores, 0, count - 1);
        return order;
    }

    private static void sort(int[] order, double[] scores, int low, int high) {
        while (high - low >= INSERTION_SORT_BELOW) {
            int pivot = order[(low + high) >>> 1];
            int i = low, j = high;
            while (i <= j) {
                while (before(order[i], pivot, scores)) i++;
                while (before(pivot, order[j], scores)) j--;
                if (i <= j) { int t = order[i]; order[i++] = order[j]; order[j--] = t; }
            }
            if (j - low < high - i) { sort(order, scores, low, j); low = i; }
            else { sort(order, scores, i, high); high = j; }
        }
        for (int i = low + 1; i <= high; i++) {
            int position = order[i], j = i - 1;
            while (j >= low && before(position, order[j], scores)) { order[j + 1] = order[j]; j--; }
            order[j + 1] = position;
        }
    }

    /** Whether position a goes before position b (as Double.compare orders scores, descending). */
    private static boolean before(int a, int b, double[] scores) {
        int byScore = Double.compare(scores[b], scores[a]);
        return byScore < 0 || byScore == 0 && a < b;
    }

}
