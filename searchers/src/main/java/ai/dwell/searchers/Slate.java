package ai.dwell.searchers;

import java.util.Arrays;

/**
 * The order in which candidates are shown, and how likely the logging policy was to show it.
 *
 * @param order             candidate indexes (into the score-ordered candidate list), shown first to last
 * @param stepPropensities  for each shown position, the Plackett-Luce probability of choosing that
 *                          candidate among those not yet shown
 * @param plPropensity      the Plackett-Luce probability of the whole shown order: the product of the steps
 * @param propensity        the probability of this order under the logging policy, a mixture of the
 *                          greedy order (weight 1 - rate) and Plackett-Luce sampling (weight rate)
 * @param explored          whether this order was sampled rather than taken greedily
 */
public record Slate(int[] order, double[] stepPropensities, double plPropensity, double propensity, boolean explored) {

    public Slate {
        order = order.clone();
        stepPropensities = stepPropensities.clone();
    }

    @Override public int[] order() { return order.clone(); }
    @Override public double[] stepPropensities() { return stepPropensities.clone(); }

    public int size() { return order.length; }

    public int candidate(int position) { return order[position]; }

    public double stepPropensity(int position) { return stepPropensities[position]; }

    @Override
    public String toString() {
        return "slate " + Arrays.toString(order) + " p=" + propensity + (explored ? " (explored)" : " (greedy)");
    }

}
