package ai.dwell.runtime.rank;

import ai.dwell.runtime.match.TermFieldMatchData;


/**
 * textSimilarity(field) and its outputs score, proximity, order, queryCoverage and fieldCoverage, as searchlib's
 * TextSimilarityExecutor: the terms with a weight that search the field are walked in the order of their occurrences
 * (by position, then term order), starting with the earliest occurrence of any term; each next term is the one whose
 * next occurrence is the first after the last matched position (its earlier ones skipped), and once matched a term is
 * done. Proximity is the mean over consecutive matches of 1 − ((distance − 1)/8)² (0 past 8), order the share of
 * matches that come later in the query than the match before them, query coverage the matched terms' share of the
 * weight, field coverage the matches over the field length (of the element of the first occurrence); the score is
 * 0.35·proximity + 0.15·order + 0.30·query coverage + 0.20·field coverage. A document without occurrences gives 0.
 * Reads each term's occurrences into reused arrays: nothing is allocated per document.
 */
final class TextSimilarityFeature {

    enum Output { SCORE, PROXIMITY, ORDER, QUERY_COVERAGE, FIELD_COVERAGE }

    static Output output(String name, String feature) {
        return switch (name == null ? "score" : name) {
            case "score" -> Output.SCORE;
            case "proximity" -> Output.PROXIMITY;
            case "order" -> Output.ORDER;
            case "queryCoverage" -> Output.QUERY_COVERAGE;
            case "fieldCoverage" -> Output.FIELD_COVERAGE;
            default -> throw new UnsupportedFeatureException("feature '" + feature + "': textSimilarity has the outputs score, proximity, " +
                                                             "order, queryCoverage and fieldCoverage");
        };
    }

    private TextSimilarityFeature() {}

    /** The outputs for the document last asked for, computed once per document. */
    static final class Computer implements Memo {

        private final NativeRankFeatures.Slot[] slots;
        private final int[] weights;
        private final int totalTermWeight;
        private final int[] next; // per term: the index of its next occurrence, or -1 when it is out of the walk
        private int lid = -1;
        private final double[] values = new double[Output.values().length];

        Computer(String field, NativeRankFeatures.Terms terms) {
            WeightedFieldTerms fieldTerms = WeightedFieldTerms.of(field, terms);
            this.slots = fieldTerms.slots();
            this.weights = fieldTerms.weights();
            this.totalTermWeight = fieldTerms.totalWeight();
            this.next = new int[slots.length];
        }

        @Override public void forget() { lid = -1; }

        double value(int lid, Output output) {
            if (lid != this.lid) {
                compute(lid);
                this.lid = lid;
            }
            return values[output.ordinal()];
        }

        private static double proximityScore(long distance) {
            return distance > 8 ? 0 : 1.0 - ((distance - 1) / 8.0) * ((distance - 1) / 8.0);
        }

        private void compute(int lid) {
            int queued = 0;
            for (int i = 0; i < slots.length; i++) {
                next[i] = slots[i].unpack(lid) && slots[i].data().size() > 0 ? 0 : -1;
                if (next[i] == 0) queued++;
            }
            java.util.Arrays.fill(values, 0);
            if (queued == 0) return;
            int first = front();
            TermFieldMatchData firstData = slots[first].data();
            long fieldLength = firstData.elementLength(0);
            long matchedTerms = 1, lastPosition = firstData.position(0);
            int sumTermWeight = weights[first], lastIndex = first, inOrder = 0;
            double sumProximity = 0;
            next[first] = -1;
            for (int item = front(); item >= 0; item = front()) {
                TermFieldMatchData data = slots[item].data();
                long position = data.position(next[item]);
                if (position > lastPosition) {
                    sumProximity += proximityScore(position - lastPosition);
                    if (item > lastIndex) inOrder++;
                    lastPosition = position;
                    lastIndex = item;
                    matchedTerms++;
                    sumTermWeight += weights[item];
                    next[item] = -1;
                }
                else if (++next[item] == data.size()) next[item] = -1;
            }
            double matches = Math.min(fieldLength, matchedTerms), proximity, order;
            if (matches < 2) {
                proximity = proximityScore(fieldLength);
                order = matches;
            }
            else {
                proximity = sumProximity / (matches - 1);
                order = inOrder / (matches - 1);
            }
            double queryCoverage = sumTermWeight / (double) totalTermWeight;
            double fieldCoverage = matches / fieldLength;
            values[Output.SCORE.ordinal()] = 0.35 * proximity + 0.15 * order + 0.30 * queryCoverage + 0.20 * fieldCoverage;
            values[Output.PROXIMITY.ordinal()] = proximity;
            values[Output.ORDER.ordinal()] = order;
            values[Output.QUERY_COVERAGE.ordinal()] = queryCoverage;
            values[Output.FIELD_COVERAGE.ordinal()] = fieldCoverage;
        }

        /** The term whose next occurrence comes first (by position, then term order), or -1 when none is left. */
        private int front() {
            int best = -1;
            long bestPosition = Long.MAX_VALUE;
            for (int i = 0; i < slots.length; i++) {
                if (next[i] < 0) continue;
                long position = slots[i].data().position(next[i]);
                if (position < bestPosition) {
                    best = i;
                    bestPosition = position;
                }
            }
            return best;
        }

    }

}
