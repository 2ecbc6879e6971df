package ai.dwell.runtime.engine;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The best k positions are the first k of the full order, ties by position, for any k. */
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

}
