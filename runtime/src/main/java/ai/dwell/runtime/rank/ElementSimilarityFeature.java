package ai.dwell.runtime.rank;

import ai.dwell.runtime.match.TermFieldMatchData;
import com.yahoo.searchlib.rankingexpression.RankingExpression;
import com.yahoo.searchlib.rankingexpression.evaluation.ArrayContext;
import com.yahoo.searchlib.rankingexpression.parser.ParseException;

import java.util.ArrayList;
import java.util.List;

/**
 * elementSimilarity(field) and its outputs, as searchlib's ElementSimilarityExecutor. Per element of the field that the
 * ranked terms with a weight searching the field occur in, the terms are walked in the order of their occurrences in the
 * element (by position, then term order): the first is the earliest occurrence of any term; each next match is the
 * term whose next occurrence comes first after the last matched position (its earlier ones skipped), and once matched a
 * term is done in the element. Of an element, with m the matched terms and L the element's length (at least m):
 * p (proximity) is the mean over consecutive matches of 1 − ((distance − 1)/8)² (0 past 8), or that of L itself when
 * m is 1; o (order) the share of the matches after the first that come later in the query than the match before them
 * (1 when m is 1); q (query coverage) the matched terms' share of the terms' weight; f (field coverage) m/L; w the
 * element's weight (1 in an array). Each output is an aggregator (max, avg or sum) over the elements of an expression of
 * p, o, q, f and w: the default output (the profile's elementSimilarity(field).output.default, else
 * max((0.35*p+0.15*o+0.30*q+0.20*f)*w)) and every other elementSimilarity(field).output.name the profile sets. A document
 * where no term occurs gives 0. The default expression is computed directly; another is evaluated by searchlib's Java
 * evaluator, which allocates per element.
 */
final class ElementSimilarityFeature {

    static final String DEFAULT_OUTPUT = "max((0.35*p+0.15*o+0.30*q+0.20*f)*w)";

    private ElementSimilarityFeature() {}

    enum Aggregator { MAX, AVG, SUM }

    /** One output: its name, aggregator and per-element expression (null for the default one, computed directly). */
    record Output(String name, Aggregator aggregator, RankingExpression expression) {}

    /** The outputs the profile defines for the feature (named as proton names them, e.g. elementSimilarity(chunks)): the default first. */
    static List<Output> outputs(RankProfile profile, String feature) {
        String prefix = feature + ".output.";
        List<Output> outputs = new ArrayList<>();
        outputs.add(output(feature, "default", profile.property(prefix + "default").orElse(DEFAULT_OUTPUT)));
        for (String name : profile.propertyNames().stream().sorted().toList())
            if (name.startsWith(prefix) && ! name.equals(prefix + "default"))
                outputs.add(output(feature, name.substring(prefix.length()), profile.property(name).get()));
        return outputs;
    }

    private static Output output(String feature, String name, String value) {
        String text = value.trim();
        int open = text.indexOf('(');
        if (open < 0 || ! text.endsWith(")"))
            throw new UnsupportedFeatureException("feature '" + feature + "': output '" + name + "' is not an aggregator of an expression: '" + value + "'");
        Aggregator aggregator = switch (text.substring(0, open).trim()) {
            case "max" -> Aggregator.MAX;
            case "avg" -> Aggregator.AVG;
            case "sum" -> Aggregator.SUM;
            default -> throw new UnsupportedFeatureException("feature '" + feature + "': output '" + name + "' has the unknown aggregator '" +
                                                             text.substring(0, open).trim() + "' (max, avg and sum are known)");
        };
        String body = text.substring(open + 1, text.length() - 1);
        if (text.replace(" ", "").equals(DEFAULT_OUTPUT)) return new Output(name, aggregator, null);
        try {
            return new Output(name, aggregator, new RankingExpression(body));
        }
        catch (ParseException e) {
            throw new UnsupportedFeatureException("feature '" + feature + "': output '" + name + "': could not parse '" + body + "': " + e.getMessage());
        }
    }

    /** The outputs for the document last asked for, computed once per document. */
    static final class Computer implements Memo {

        private static final String[] VARIABLES = { "p", "o", "q", "f", "w" };

        private final List<Output> outputs;
        private final ArrayContext[] contexts; // of each output with an expression
        private final int[][] variableIndexes; // of each such output: the context's index of p, o, q, f and w, or -1
        private final NativeRankFeatures.Slot[] slots;
        private final int[] weights;
        private final int totalTermWeight;
        private final int[] at; // per term: the index of its next occurrence, or -1 when it has no more
        private final boolean[] inElement; // per term: whether it takes part in the walk of the current element
        private final double[] values, sums;
        private final int[] counts;
        private int lid = -1;

        Computer(List<Output> outputs, String field, NativeRankFeatures.Terms terms) {
            this.outputs = outputs;
            this.contexts = new ArrayContext[outputs.size()];
            this.variableIndexes = new int[outputs.size()][];
            for (int i = 0; i < outputs.size(); i++) {
                if (outputs.get(i).expression() == null) continue;
                contexts[i] = new ArrayContext(outputs.get(i).expression(), true);
                variableIndexes[i] = new int[VARIABLES.length];
                for (int v = 0; v < VARIABLES.length; v++)
                    variableIndexes[i][v] = contexts[i].names().contains(VARIABLES[v]) ? contexts[i].getIndex(VARIABLES[v]) : -1;
            }
            WeightedFieldTerms fieldTerms = WeightedFieldTerms.of(field, terms);
            this.slots = fieldTerms.slots();
            this.weights = fieldTerms.weights();
            this.totalTermWeight = fieldTerms.totalWeight();
            this.at = new int[slots.length];
            this.inElement = new boolean[slots.length];
            this.values = new double[outputs.size()];
            this.sums = new double[outputs.size()];
            this.counts = new int[outputs.size()];
        }

        /** The index of an output by its name (null: the default). */
        int output(String name, String feature) {
            if (name == null) return 0;
            for (int i = 0; i < outputs.size(); i++) if (outputs.get(i).name().equals(name)) return i;
            throw new UnsupportedFeatureException("feature '" + feature + "': elementSimilarity has the outputs " +
                                                  outputs.stream().map(Output::name).toList() + " in this profile, not '" + name + "'");
        }

        @Override public void forget() { lid = -1; }

        double value(int lid, int output) {
            if (lid != this.lid) {
                compute(lid);
                this.lid = lid;
            }
            return values[output];
        }

        private void compute(int lid) {
            java.util.Arrays.fill(sums, 0);
            java.util.Arrays.fill(counts, 0);
            for (int i = 0; i < slots.length; i++) at[i] = slots[i].unpack(lid) && slots[i].data().size() > 0 ? 0 : -1;
            for (int element = WeightedFieldTerms.nextElement(slots, at); element >= 0; element = WeightedFieldTerms.nextElement(slots, at)) {
                for (int i = 0; i < slots.length; i++) inElement[i] = at[i] >= 0 && slots[i].data().element(at[i]) == element;
                int first = front();
                TermFieldMatchData firstData = slots[first].data();
                long elementLength = firstData.elementLength(at[first]);
                double elementWeight = firstData.elementWeight(at[first]);
                long lastPosition = firstData.position(at[first]);
                int matched = 1, sumTermWeight = weights[first], lastIndex = first, inOrder = 0;
                double sumProximity = 0;
                leaveElement(first, element);
                for (int item = front(); item >= 0; item = front()) {
                    TermFieldMatchData data = slots[item].data();
                    long position = data.position(at[item]);
                    if (position > lastPosition) {
                        sumProximity += proximityScore(position - lastPosition);
                        if (item > lastIndex) inOrder++;
                        lastPosition = position;
                        lastIndex = item;
                        matched++;
                        sumTermWeight += weights[item];
                        leaveElement(item, element);
                    }
                    else if (++at[item] == data.size()) {
                        at[item] = -1;
                        inElement[item] = false;
                    }
                    else if (data.element(at[item]) != element) {
                        inElement[item] = false;
                    }
                }
                elementLength = Math.max(elementLength, matched);
                double proximity, order;
                if (matched < 2) {
                    proximity = proximityScore(elementLength);
                    order = matched;
                }
                else {
                    proximity = sumProximity / (matched - 1);
                    order = inOrder / (double) (matched - 1);
                }
                double queryCoverage = sumTermWeight / (double) totalTermWeight;
                double fieldCoverage = matched / (double) elementLength;
                for (int o = 0; o < outputs.size(); o++)
                    aggregate(o, evaluate(o, proximity, order, queryCoverage, fieldCoverage, elementWeight));
            }
            for (int o = 0; o < outputs.size(); o++)
                values[o] = outputs.get(o).aggregator() == Aggregator.AVG ? (counts[o] == 0 ? 0 : sums[o] / counts[o]) : sums[o];
        }

        private double evaluate(int output, double p, double o, double q, double f, double w) {
            if (contexts[output] == null) return (0.35 * p + 0.15 * o + 0.30 * q + 0.20 * f) * w;
            ArrayContext context = contexts[output];
            double[] arguments = { p, o, q, f, w };
            for (int v = 0; v < VARIABLES.length; v++)
                if (variableIndexes[output][v] >= 0) context.put(variableIndexes[output][v], arguments[v]);
            return outputs.get(output).expression().evaluate(context).asDouble();
        }

        private void aggregate(int output, double value) {
            switch (outputs.get(output).aggregator()) {
                case MAX -> sums[output] = counts[output]++ == 0 || value > sums[output] ? value : sums[output];
                case AVG, SUM -> {
                    sums[output] += value;
                    counts[output]++;
                }
            }
        }

        /** Moves a term past its occurrences in the element: it takes no further part in the element's walk. */
        private void leaveElement(int term, int element) {
            TermFieldMatchData data = slots[term].data();
            while (at[term] < data.size() && data.element(at[term]) == element) at[term]++;
            if (at[term] == data.size()) at[term] = -1;
            inElement[term] = false;
        }

        /** The term in the element's walk whose next occurrence comes first (by position, then term order), or -1. */
        private int front() {
            int best = -1;
            long bestPosition = Long.MAX_VALUE;
            for (int i = 0; i < slots.length; i++) {
                if ( ! inElement[i]) continue;
                long position = slots[i].data().position(at[i]);
                if (position < bestPosition) {
                    best = i;
                    bestPosition = position;
                }
            }
            return best;
        }

        /** 1 − ((distance − 1)/8)², 0 past 8 (distances here are at least 1). */
        private static double proximityScore(long distance) {
            return distance > 8 ? 0 : 1.0 - ((distance - 1) / 8.0) * ((distance - 1) / 8.0);
        }

    }

}
