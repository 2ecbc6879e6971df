package ai.dwell.searchers;

import java.util.SplittableRandom;

/**
 * Samples which candidates to show, and in what order, for exploration.
 *
 * The logging policy is a mixture: with probability 1 - rate the greedy order (best score first),
 * with probability rate a Plackett-Luce sample over softmax(score / temperature), drawn without
 * replacement position by position. Sampling uses the Gumbel-top-k trick, which draws from exactly
 * this distribution in one pass. Every order with non-zero probability can be shown, so off-policy
 * estimates of any other ranking of the same candidates are unbiased.
 */
public class PlackettLuceSampler {

    private final double rate;
    private final double temperature;

    public PlackettLuceSampler(double rate, double temperature) {
        if ( ! (rate >= 0 && rate <= 1))
            throw new IllegalArgumentException("exploration.rate must be in [0, 1], was " + rate);
        if ( ! (temperature > 0 && Double.isFinite(temperature)))
            throw new IllegalArgumentException("exploration.temperature must be positive, was " + temperature);
        this.rate = rate;
        this.temperature = temperature;
    }

    /**
     * Chooses the shown order.
     *
     * @param scores candidate scores in descending order (the greedy order is 0, 1, 2, ...)
     * @param shown  how many to show, at most scores.length
     */
    public Slate sample(double[] scores, int shown, SplittableRandom random) {
        shown = Math.min(shown, scores.length);
        boolean explore = rate > 0 && random.nextDouble() < rate;
        int[] order = explore ? gumbelTopK(scores, shown, random) : greedy(shown);
        return slate(scores, order, explore);
    }

    /** Returns the slate of a given order, with its propensities under this policy. */
    public Slate slate(double[] scores, int[] order, boolean explored) {
        double[] steps = stepPropensities(scores, order);
        double pl = 1;
        for (double step : steps) pl *= step;
        boolean isGreedy = isGreedy(order);
        double propensity = rate * pl + (isGreedy ? 1 - rate : 0);
        return new Slate(order, steps, pl, propensity, explored);
    }

    /**
     * The Plackett-Luce probability of each choice in order, given the choices before it. The weight left at each
     * position is summed over the candidates not yet chosen, not kept by subtracting each choice from the total:
     * where the best candidate's weight dwarfs the rest (scores spread over more than ~37 temperatures), the
     * subtraction cancelled to 0 and the next steps came out infinite.
     */
    double[] stepPropensities(double[] scores, int[] order) {
        double max = Double.NEGATIVE_INFINITY;
        for (double score : scores) max = Math.max(max, score);
        double[] weights = new double[scores.length];
        for (int i = 0; i < scores.length; i++)
            weights[i] = Math.exp((scores[i] - max) / temperature);
        boolean[] chosen = new boolean[scores.length];
        double[] steps = new double[order.length];
        for (int position = 0; position < order.length; position++) {
            double remaining = 0;
            for (int i = 0; i < weights.length; i++)
                if ( ! chosen[i]) remaining += weights[i];
            steps[position] = remaining > 0 ? weights[order[position]] / remaining : 0;
            chosen[order[position]] = true;
        }
        return steps;
    }

    private int[] gumbelTopK(double[] scores, int shown, SplittableRandom random) {
        int n = scores.length;
        double[] keys = new double[n];
        for (int i = 0; i < n; i++) {
            double u = random.nextDouble();
            while (u == 0) u = random.nextDouble();
            keys[i] = scores[i] / temperature - Math.log(-Math.log(u));
        }
        int[] order = new int[shown];
        boolean[] taken = new boolean[n];
        for (int position = 0; position < shown; position++) {
            int best = -1;
            for (int i = 0; i < n; i++)
                if ( ! taken[i] && (best < 0 || keys[i] > keys[best])) best = i;
            taken[best] = true;
            order[position] = best;
        }
        return order;
    }

    private static int[] greedy(int shown) {
        int[] order = new int[shown];
        for (int i = 0; i < shown; i++) order[i] = i;
        return order;
    }

    private static boolean isGreedy(int[] order) {
        for (int i = 0; i < order.length; i++)
            if (order[i] != i) return false;
        return true;
    }

}
