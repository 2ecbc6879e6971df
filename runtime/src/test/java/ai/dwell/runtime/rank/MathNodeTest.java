package ai.dwell.runtime.rank;

import org.junit.jupiter.api.Test;

import com.yahoo.searchlib.rankingexpression.rule.Function;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The log table gives exactly Math.log: the same bits for every integer it holds, and Math.log itself elsewhere.
 * Each function of a kind computes what searchlib's function of that name computes, bit for bit, one number at a
 * time and over a block.
 */
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

    @Test
    void eachKindIsSearchlibsFunctionBitForBit() {
        Random random = new Random(5);
        double[] xs = new double[2000];
        for (int i = 0; i < xs.length; i++) xs[i] = (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(7) - 3);
        xs[0] = -0.0; xs[1] = 0.0; xs[2] = Double.NaN; xs[3] = Double.NEGATIVE_INFINITY; xs[4] = Double.POSITIVE_INFINITY; xs[5] = 3.0;
        for (Function function : Function.values()) {
            if (MathNode.of(function).isEmpty()) continue;
            MathNode.Kind kind = MathNode.of(function).get();
            double[] block = xs.clone();
            MathNode.applyInPlace(kind, block, block.length);
            for (int i = 0; i < xs.length; i++) {
                long expected = Double.doubleToLongBits(function.evaluate(xs[i], 0)); // every NaN as one
                assertEquals(expected, Double.doubleToLongBits(MathNode.apply(kind, xs[i])), function + "(" + xs[i] + ")");
                assertEquals(expected, Double.doubleToLongBits(block[i]), function + "(" + xs[i] + ") over a block");
            }
        }
    }

    private static void assertSameLog(double x) {
        assertEquals(Double.doubleToRawLongBits(Math.log(x)), Double.doubleToRawLongBits(MathNode.log(x)), "log(" + x + ")");
    }

}
