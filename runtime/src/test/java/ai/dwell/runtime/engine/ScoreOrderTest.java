package ai.dwell.runtime.engine;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The best k positions are the first k of the full order (Double.compare, descending; ties by position), for any k. */
public class ScoreOrderTest {

    @Test
    void topIsThePrefixOfTheFullOrder() {
        Random random = new Random(7);
        for (int round = 0; round < 300; round++) {
            int count = random.nextInt(3000);
            double[] scores = new double[count];
            int distinct = 1 + random.nextInt(50); // many ties
            for (int i = 0; i < count; i++) scores[i] = random.nextInt(distinct) - distinct / 2.0;
            int[] full = ScoreOrder.descending(scores, count);
            for (int k : new int[] { 0, 1, 2, 17, count / 3, count - 1, count, count + 5 }) {
                if (k < 0) continue;
                assertArrayEquals(Arrays.copyOf(full, Math.min(k, count)), ScoreOrder.top(scores, count, k), "count " + count + ", k " + k);
            }
        }
    }

    /** Many scores (where the best are found by their threshold), with ties, NaN, infinities and both zeros, over sub-ranges. */
    @Test
    void topOfManyScoresIsTheirOrderByDoubleCompare() {
        Random random = new Random(11);
        double[] special = { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0, Double.MIN_VALUE, -Double.MAX_VALUE };
        for (int round = 0; round < 40; round++) {
            int count = 4096 + random.nextInt(40_000);
            double[] scores = new double[count];
            int distinct = 1 + random.nextInt(round % 2 == 0 ? 20 : 1_000_000);
            for (int i = 0; i < count; i++)
                scores[i] = random.nextInt(50) == 0 ? special[random.nextInt(special.length)] : random.nextInt(distinct) / 7.0 - distinct / 14.0;
            int from = random.nextInt(50), to = count - random.nextInt(50);
            if (round % 5 == 4) { // the best scores are exactly where the threshold's sample looks: it overestimates, and all are candidates
                java.util.Arrays.fill(scores, 0.0);
                for (int i = 0; i < 1024; i++) scores[from + (int) ((long) i * (to - from) / 1024)] = 100 + i % 3;
            }
            Integer[] expected = new Integer[to - from];
            for (int i = 0; i < expected.length; i++) expected[i] = from + i;
            Arrays.sort(expected, (a, b) -> { int byScore = Double.compare(scores[b], scores[a]); return byScore != 0 ? byScore : Integer.compare(a, b); });
            for (int k : new int[] { 1, 2001, (to - from) / 2, to - from - 1 }) {
                int[] want = Arrays.stream(expected, 0, k).mapToInt(Integer::intValue).toArray();
                assertArrayEquals(want, ScoreOrder.top(scores, from, to, k), "count " + (to - from) + ", k " + k);
            }
        }
    }


    /** The unordered best k are the first k of the full order as a set; bestFirst and sortRange agree with it. */
    @Test
    void bestIsTheSetOfTheTopK() {
        Random random = new Random(13);
        for (int round = 0; round < 200; round++) {
            int count = random.nextInt(round % 4 == 0 ? 20_000 : 3000);
            double[] scores = new double[count];
            int distinct = 1 + random.nextInt(round % 2 == 0 ? 10 : 100_000);
            for (int i = 0; i < count; i++) scores[i] = random.nextInt(distinct) - distinct / 2.0;
            int[] full = ScoreOrder.descending(scores, count);
            for (int k : new int[] { 0, 1, 17, count / 3, count - 1, count, count + 5 }) {
                if (k < 0) continue;
                int[] want = Arrays.copyOf(full, Math.min(k, count));
                int[] got = ScoreOrder.best(scores, 0, count, k);
                assertArrayEquals(sorted(want), sorted(got), "best: count " + count + ", k " + k);
                int[] positions = ScoreOrder.best(scores, 0, count, count); // all, in position order
                ScoreOrder.bestFirst(positions, scores, count, k);
                assertArrayEquals(sorted(want), sorted(Arrays.copyOf(positions, Math.min(k, count))), "bestFirst: count " + count + ", k " + k);
                ScoreOrder.sortRange(positions, scores, 0, Math.min(k, count));
                assertArrayEquals(want, Arrays.copyOf(positions, Math.min(k, count)), "sortRange: count " + count + ", k " + k);
            }
        }
    }

    /**
     * A rerank window's order: by second-phase score, ties by first-phase order, whatever order the window comes in;
     * the reference sorts boxed indexes with the same comparison spelled out.
     */
    @Test
    void rerankedOrderIsBySecondThenByFirstPhaseOrder() {
        Random random = new Random(17);
        double[] special = { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0 };
        for (int round = 0; round < 200; round++) {
            int matched = 1 + random.nextInt(5000);
            double[] first = new double[matched];
            int distinct = 1 + random.nextInt(round % 2 == 0 ? 5 : 1000);
            for (int i = 0; i < matched; i++) first[i] = random.nextInt(30) == 0 ? special[random.nextInt(special.length)] : random.nextInt(distinct);
            int windowSize = 1 + random.nextInt(matched);
            int[] window = ScoreOrder.best(first, 0, matched, windowSize); // unordered
            double[] second = new double[windowSize];
            int distinctSecond = 1 + random.nextInt(round % 3 == 0 ? 3 : 500);
            for (int r = 0; r < windowSize; r++) second[r] = random.nextInt(40) == 0 ? special[random.nextInt(special.length)] : random.nextInt(distinctSecond);
            Integer[] expected = new Integer[windowSize];
            for (int r = 0; r < windowSize; r++) expected[r] = r;
            Arrays.sort(expected, (a, b) -> {
                int bySecond = Double.compare(second[b], second[a]);
                if (bySecond != 0) return bySecond;
                int byFirst = Double.compare(first[window[b]], first[window[a]]);
                return byFirst != 0 ? byFirst : Integer.compare(window[a], window[b]);
            });
            for (int k : new int[] { 0, 1, 10, windowSize / 2, windowSize, windowSize + 3 }) {
                int[] want = Arrays.stream(expected, 0, Math.min(k, windowSize)).mapToInt(Integer::intValue).toArray();
                assertArrayEquals(want, ScoreOrder.topReranked(second, window, first, windowSize, k), "window " + windowSize + ", k " + k);
            }
        }
    }

    private static int[] sorted(int[] positions) {
        int[] copy = positions.clone();
        Arrays.sort(copy);
        return copy;
    }

}
