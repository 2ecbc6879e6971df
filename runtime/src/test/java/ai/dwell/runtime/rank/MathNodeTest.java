package ai.dwell.runtime.rank;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The log table gives exactly Math.log: the same bits for every integer it holds, and Math.log itself elsewhere. */
public class MathNodeTest {

    @Test
    void logIsMathLogBitForBit() {
        for (int i = -10; i < 10_000; i++) assertSameLog(i);
        Random random = new Random(3);
        for (int i = 0; i < 100_000; i++) {
            assertSameLog(random.nextDouble() * 5000);
            assertSameLog(random.nextInt(5000) + (random.nextBoolean() ? Math.ulp(4096.0) : -Math.ulp(1.0)));
        }
        for (double x : new double[] { -0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
                                       4095.0, 4096.0, 4095.999999, 1e300, Integer.MAX_VALUE + 1.0, -1.0 })
            assertSameLog(x);
    }

    private static void assertSameLog(double x) {
        assertEquals(Double.doubleToRawLongBits(Math.log(x)), Double.doubleToRawLongBits(MathNode.log(x)), "log(" + x + ")");
    }

}
