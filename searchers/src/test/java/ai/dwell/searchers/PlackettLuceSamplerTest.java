package ai.dwell.searchers;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class PlackettLuceSamplerTest {

    private static final double[] SCORES = {2.0, 1.2, 0.5, -0.3};

    @Test
    void stepPropensitiesStayExactWhereTheBestCandidateDwarfsTheRest() {
        // weights e^0, e^-66.7, e^-70, e^-73.3: the total minus the best's weight cancels to 0 in doubles
        PlackettLuceSampler sampler = new PlackettLuceSampler(0.15, 0.3);
        double[] steps = sampler.stepPropensities(new double[] {40, 20, 19, 18}, new int[] {0, 2, 1});
        double a = 20 / 0.3, b = 19 / 0.3, c = 18 / 0.3; // each candidate's score over T, relative within the rest
        double second = 1 / (Math.exp(a - b) + 1 + Math.exp(c - b));
        double third = 1 / (1 + Math.exp(c - a));
        assertEquals(1.0, steps[0], 1e-15);
        assertEquals(second, steps[1], 1e-12 * second);
        assertEquals(third, steps[2], 1e-12 * third);
        Slate slate = sampler.slate(new double[] {40, 20, 19, 18}, new int[] {0, 2, 1}, true);
        assertEquals(0.15 * second * third, slate.propensity(), 1e-12 * slate.propensity());
    }

    @Test
    void stepPropensitiesAreSoftmaxOverTheCandidatesLeft() {
        PlackettLuceSampler sampler = new PlackettLuceSampler(1.0, 0.5);
        Slate slate = sampler.slate(SCORES, new int[] {2, 0, 3}, true);
        // by hand: weights exp(s / 0.5)
        double w0 = Math.exp(4.0), w1 = Math.exp(2.4), w2 = Math.exp(1.0), w3 = Math.exp(-0.6);
        double all = w0 + w1 + w2 + w3;
        assertEquals(w2 / all, slate.stepPropensity(0), 1e-12);
        assertEquals(w0 / (all - w2), slate.stepPropensity(1), 1e-12);
        assertEquals(w3 / (all - w2 - w0), slate.stepPropensity(2), 1e-12);
        assertEquals(slate.stepPropensity(0) * slate.stepPropensity(1) * slate.stepPropensity(2), slate.plPropensity(), 1e-15);
        assertEquals(slate.plPropensity(), slate.propensity(), 1e-15, "rate 1: pure Plackett-Luce");
    }

    @Test
    void propensitiesOfAllPossibleOrdersSumToOne() {
        for (double rate : new double[] {0.0, 0.3, 1.0}) {
            for (int shown : new int[] {1, 2, 4}) {
                PlackettLuceSampler sampler = new PlackettLuceSampler(rate, 0.8);
                double total = 0, plTotal = 0;
                for (int[] order : orders(SCORES.length, shown)) {
                    Slate slate = sampler.slate(SCORES, order, true);
                    total += slate.propensity();
                    plTotal += slate.plPropensity();
                }
                assertEquals(1.0, total, 1e-12, "rate " + rate + ", shown " + shown);
                assertEquals(1.0, plTotal, 1e-12);
            }
        }
    }

    @Test
    void theGreedyOrderCarriesTheUnexploredShare() {
        PlackettLuceSampler sampler = new PlackettLuceSampler(0.2, 1.0);
        Slate greedy = sampler.slate(SCORES, new int[] {0, 1}, false);
        assertEquals(0.8 + 0.2 * greedy.plPropensity(), greedy.propensity(), 1e-15);
        Slate other = sampler.slate(SCORES, new int[] {1, 0}, true);
        assertEquals(0.2 * other.plPropensity(), other.propensity(), 1e-15);
    }

    @Test
    void samplesFollowTheirPropensities() {
        PlackettLuceSampler sampler = new PlackettLuceSampler(0.5, 0.7);
        double[] scores = {1.0, 0.4, 0.0};
        SplittableRandom random = new SplittableRandom(11);
        int n = 60_000;
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < n; i++)
            counts.merge(Arrays.toString(sampler.sample(scores, 3, random).order()), 1, Integer::sum);
        for (int[] order : orders(3, 3)) {
            double expected = sampler.slate(scores, order, true).propensity();
            double observed = counts.getOrDefault(Arrays.toString(order), 0) / (double) n;
            double sd = Math.sqrt(expected * (1 - expected) / n);
            assertTrue(Math.abs(observed - expected) < 5 * sd,
                       Arrays.toString(order) + ": observed " + observed + ", expected " + expected);
        }
    }

    @Test
    void theSameSeedGivesTheSameOrder() {
        PlackettLuceSampler sampler = new PlackettLuceSampler(1.0, 1.0);
        double[] scores = {3, 2.5, 2, 1.5, 1, 0.5, 0};
        assertArrayEquals(sampler.sample(scores, 5, new SplittableRandom(42)).order(),
                          sampler.sample(scores, 5, new SplittableRandom(42)).order());
        long distinct = java.util.stream.LongStream.range(0, 30)
                .mapToObj(seed -> Arrays.toString(sampler.sample(scores, 5, new SplittableRandom(seed)).order()))
                .distinct().count();
        assertTrue(distinct > 5, "different seeds explore different orders: " + distinct);
    }

    @Test
    void rateZeroIsAlwaysGreedy() {
        PlackettLuceSampler sampler = new PlackettLuceSampler(0.0, 1.0);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 100; i++) {
            Slate slate = sampler.sample(SCORES, 3, random);
            assertArrayEquals(new int[] {0, 1, 2}, slate.order());
            assertEquals(1.0, slate.propensity(), 1e-15);
            assertFalse(slate.explored());
        }
    }

    @Test
    void invalidSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PlackettLuceSampler(1.5, 1));
        assertThrows(IllegalArgumentException.class, () -> new PlackettLuceSampler(-0.1, 1));
        assertThrows(IllegalArgumentException.class, () -> new PlackettLuceSampler(0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PlackettLuceSampler(Double.NaN, 1));
    }

    /** Every ordered choice of `shown` of n candidates. */
    private static List<int[]> orders(int n, int shown) {
        List<int[]> out = new ArrayList<>();
        extend(new int[shown], 0, new boolean[n], out);
        return out;
    }

    private static void extend(int[] prefix, int length, boolean[] used, List<int[]> out) {
        if (length == prefix.length) { out.add(prefix.clone()); return; }
        for (int i = 0; i < used.length; i++) {
            if (used[i]) continue;
            used[i] = true;
            prefix[length] = i;
            extend(prefix, length + 1, used, out);
            used[i] = false;
        }
    }

}
