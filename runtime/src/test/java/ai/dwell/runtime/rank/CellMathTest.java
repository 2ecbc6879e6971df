package ai.dwell.runtime.rank;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The vector API's forms of the network's loops against the scalar ones: the same bits for the scaled additions and
 * the rounding to float, the same floats for elu, at every length (the lanes' remainder included), offset and special
 * value. The tests run with jdk.incubator.vector (pom.xml), and warm the operations first so that C2's intrinsics
 * (what the runtime runs once warm) are what is compared, not only the vector API's Java fallback.
 */
public class CellMathTest {

    private static final CellMath.Operations scalar = new CellMath.Scalar();
    private static final double[] SPECIAL = { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0,
                                              Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE,
                                              1e-300, -1e-300, -745.2, -708.5, 3.4028235677973366e38, -1e-8, 1.0, -1.0 };

    @BeforeAll
    static void warm() {
        assertTrue(CellMath.simd(), "the tests run with jdk.incubator.vector, so the runtime's SIMD form is what is tested");
        CellMath.warmUp(); // what the runtime runs as it starts; then every length, so that the lanes' remainder is warm too
        double[] a = random(new Random(7), 64), b = random(new Random(8), 64);
        long start = System.nanoTime();
        for (int i = 0; i < 40_000 || System.nanoTime() - start < 500_000_000L; i++) { // C2 compiles in the background
            CellMath.addScaled(a, 0, b, 0, 0.5, 61);
            CellMath.roundToFloat(b, 61);
            CellMath.eluInPlace(b, 61);
            if (i % 64 == 0) { a = random(new Random(i), 64); b = random(new Random(i + 1), 64); }
        }
    }

    @Test
    void scaledAdditionsHaveTheScalarLoopsBits() {
        Random random = new Random(1);
        for (int n = 0; n <= 40; n++) {
            for (int offset : new int[] { 0, 3 }) {
                double[] x = random(random, n + 2 * offset), out = random(random, n + 2 * offset), expected = out.clone();
                double w = random.nextGaussian();
                scalar.addScaled(expected, offset, x, 2 * offset, w, n);
                CellMath.addScaled(out, offset, x, 2 * offset, w, n);
                assertArrayEquals(bits(expected), bits(out), "n " + n + ", offset " + offset);
            }
        }
        double[] x = SPECIAL.clone(), out = SPECIAL.clone(), expected = SPECIAL.clone();
        for (int i = 0; i < out.length; i++) out[i] = expected[i] = SPECIAL[(i + 5) % SPECIAL.length];
        scalar.addScaled(expected, 0, x, 0, -3.0, x.length);
        CellMath.addScaled(out, 0, x, 0, -3.0, x.length);
        assertArrayEquals(bits(expected), bits(out));
    }

    @Test
    void roundingToFloatHasTheCastsBits() {
        Random random = new Random(2);
        for (int n : new int[] { 0, 1, 7, 8, 9, 17, 2001 }) {
            double[] values = random(random, n), expected = values.clone();
            for (int i = 0; i < n; i++) expected[i] = (float) expected[i];
            CellMath.roundToFloat(values, n);
            assertArrayEquals(bits(expected), bits(values), "n " + n);
        }
        double[] values = SPECIAL.clone(), expected = SPECIAL.clone();
        scalar.roundToFloat(expected, expected.length);
        CellMath.roundToFloat(values, values.length);
        assertArrayEquals(bits(expected), bits(values));
        assertEquals(-0.0, values[4]);
        assertEquals(Double.POSITIVE_INFINITY, values[7], "MAX_VALUE rounds to infinity as a float");
    }

    @Test
    void eluRoundedToFloatIsTheScalarOnesAndLeavesCellsBeyondAlone() {
        Random random = new Random(3);
        int differentDoubles = 0, cells = 0;
        for (int n : new int[] { 0, 1, 5, 8, 9, 13, 27, 2000, 18_000 }) {
            double[] values = random(random, n + 3), expected = values.clone();
            scalar.eluInPlace(expected, n);
            CellMath.eluInPlace(values, n);
            for (int i = 0; i < n; i++) {
                assertEquals((float) expected[i], (float) values[i], "cell " + i + " of " + n + ": " + values[i] + " vs " + expected[i]);
                assertEquals(expected[i], values[i], 1e-15);
                if (expected[i] != values[i]) differentDoubles++;
            }
            for (int i = n; i < n + 3; i++) assertEquals(expected[i], values[i], "a cell beyond n is left as it was");
            cells += n;
        }
        assertTrue(differentDoubles < cells / 10, differentDoubles + " of " + cells + " doubles differ in their last bits");
        double[] values = SPECIAL.clone();
        CellMath.eluInPlace(values, values.length);
        assertTrue(Double.isNaN(values[0]));
        assertEquals(Double.POSITIVE_INFINITY, values[1]);
        assertEquals(-1.0, values[2]);
        assertEquals(0.0, values[3]);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(values[4]), "elu(-0) is -0");
        assertEquals(-1.0, values[11], "exp underflows to 0");
        assertEquals(Math.exp(-1e-8) - 1, values[14], 1e-22);
        assertEquals(Math.exp(-1.0) - 1, values[16], 1e-16);
    }

    private static double[] random(Random random, int n) {
        double[] values = new double[n];
        for (int i = 0; i < n; i++) values[i] = random.nextGaussian() * (i % 3 == 0 ? 10 : 1);
        return values;
    }

    private static long[] bits(double[] values) {
        return Arrays.stream(values).mapToLong(Double::doubleToRawLongBits).toArray();
    }

}
