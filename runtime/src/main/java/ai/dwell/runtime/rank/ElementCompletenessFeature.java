package ai.dwell.runtime.rank;

import ai.dwell.runtime.match.TermFieldMatchData;

/**
 * elementCompleteness(field) and its outputs, as searchlib's ElementCompletenessExecutor: of the elements of the field
 * that the ranked terms with a weight searching the field occur in, the one with the best score, and its figures. Of
 * an element, with m the terms that occur in it, their weights' sum s, S the sum over all those terms, L the element's
 * length and w its weight (1 in an array or a single value): queryCompleteness s/S, fieldCompleteness min(L, m)/L,
 * completeness fieldCompleteness·c + queryCompleteness·(1 − c), where c is the profile's
 * elementCompleteness(field).fieldCompletenessImportance (default 0.5), and score completeness·w. Elements are taken
 * in order, and one replaces the best only with a higher score, starting from 0: so a document where no term occurs (or
 * whose best score is 0) gives 0 for every output, elementWeight included. Outputs completeness (the feature's value),
 * fieldCompleteness, queryCompleteness and elementWeight.
 */
final class ElementCompletenessFeature {

    private ElementCompletenessFeature() {}

    enum Output { COMPLETENESS, FIELD_COMPLETENESS, QUERY_COMPLETENESS, ELEMENT_WEIGHT }

    static Output output(String name, String feature) {
        return switch (name == null ? "completeness" : name) {
            case "completeness" -> Output.COMPLETENESS;
            case "fieldCompleteness" -> Output.FIELD_COMPLETENESS;
            case "queryCompleteness" -> Output.QUERY_COMPLETENESS;
            case "elementWeight" -> Output.ELEMENT_WEIGHT;
            default -> throw new UnsupportedFeatureException("feature '" + feature + "': elementCompleteness has the outputs completeness, " +
                                                             "fieldCompleteness, queryCompleteness and elementWeight, not '" + name + "'");
        };
    }

    /** The outputs for the document last asked for, computed once per document. */
    static final class Computer implements Memo {

        private final double fieldCompletenessImportance;
        private final NativeRankFeatures.Slot[] slots;
        private final int[] weights;
        private final int totalTermWeight;
        private final int[] at; // per term: the index of its next occurrence, or -1 when it has no more
        private final double[] values = new double[Output.values().length];
        private int lid = -1;

        Computer(String field, NativeRankFeatures.Terms terms, double fieldCompletenessImportance) {
            WeightedFieldTerms fieldTerms = WeightedFieldTerms.of(field, terms);
            this.slots = fieldTerms.slots();
            this.weights = fieldTerms.weights();
            this.totalTermWeight = fieldTerms.totalWeight();
            this.at = new int[slots.length];
            this.fieldCompletenessImportance = fieldCompletenessImportance;
        }

        @Override public void forget() { lid = -1; }

        double value(int lid, Output output) {
            if (lid != this.lid) {
                compute(lid);
                this.lid = lid;
            }
            return values[output.ordinal()];
        }

        private void compute(int lid) {
            double bestScore = 0, completeness = 0, fieldCompleteness = 0, queryCompleteness = 0;
            int bestWeight = 0;
            for (int i = 0; i < slots.length; i++) at[i] = slots[i].unpack(lid) && slots[i].data().size() > 0 ? 0 : -1;
            for (int element = WeightedFieldTerms.nextElement(slots, at); element >= 0; element = WeightedFieldTerms.nextElement(slots, at)) {
                int matched = 0, sumTermWeight = 0, weight = 0, length = 0;
                for (int i = 0; i < slots.length; i++) {
                    if (at[i] < 0) continue;
                    TermFieldMatchData data = slots[i].data();
                    if (data.element(at[i]) != element) continue;
                    if (matched == 0) {
                        weight = data.elementWeight(at[i]);
                        length = data.elementLength(at[i]);
                    }
                    matched++;
                    sumTermWeight += weights[i];
                    while (at[i] < data.size() && data.element(at[i]) == element) at[i]++;
                    if (at[i] == data.size()) at[i] = -1;
                }
                double elementQueryCompleteness = (double) sumTermWeight / totalTermWeight;
                double elementFieldCompleteness = Math.min(length, matched) / (double) length;
                double elementCompleteness = elementFieldCompleteness * fieldCompletenessImportance +
                                             elementQueryCompleteness * (1 - fieldCompletenessImportance);
                double score = elementCompleteness * weight;
                if (score > bestScore) {
                    bestScore = score;
                    completeness = elementCompleteness;
                    fieldCompleteness = elementFieldCompleteness;
                    queryCompleteness = elementQueryCompleteness;
                    bestWeight = weight;
                }
            }
            values[Output.COMPLETENESS.ordinal()] = completeness;
            values[Output.FIELD_COMPLETENESS.ordinal()] = fieldCompleteness;
            values[Output.QUERY_COMPLETENESS.ordinal()] = queryCompleteness;
            values[Output.ELEMENT_WEIGHT.ordinal()] = bestWeight;
        }

    }

}
