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

}
