package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.RankTerm;
import ai.dwell.runtime.match.TermFieldMatchData;
import com.yahoo.searchlib.ranking.features.fieldmatch.Field;
import com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetrics;
import com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetricsComputer;
import com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetricsParameters;
import com.yahoo.searchlib.ranking.features.fieldmatch.Query;
import com.yahoo.searchlib.ranking.features.fieldmatch.QueryTerm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * fieldMatch(field) and its outputs, as proton's FieldMatchExecutor computes them. The segmentation (the search for the
 * best segments of the query in the field, the core of the feature) is Vespa's own Java implementation,
 * searchlib's {@link FieldMatchMetricsComputer}, run on the field as the query's terms occur in it: a field of the
 * document's field length whose positions hold the query term that occurs there (a label per term) and a filler
 * elsewhere. The Java computer differs from proton's C++ one in what it does around that search, so these are taken
 * as proton's code takes them:
 * <ul>
 *   <li>the computer runs only when a query term matched the field with positions and a known field length; else the
 *       outputs are proton's "simple metrics" (completeness, queryCompleteness, weight, matches from the terms that
 *       matched, the others 0 or their value without matches);
 *   <li>the query is the terms that search the field, in query order; the total weight and significance that weight
 *       and significance are divided by are those of all the query's terms (or fieldMatch(f).totalTermWeight and
 *       .totalTermSignificance, as the request or profile gives them); significance is the legacy significance
 *       and connectedness the request's vespa.term.&lt;id&gt;.connexity, else 0.1, as proton's QueryTermFactory;
 *   <li>the occurrence outputs count the occurrences of the distinct query terms that matched (by first position),
 *       where the Java code counts every distinct query term, matched or not;
 *   <li>the outputs are computed in double from the computer's counts (matches, segments, pairs, head, tail, ...),
 *       with the parameters as doubles; the computer's float sums (proximity, weight, significance) carry float
 *       precision into proximity, score, weight and significance (a relative difference of about 1e-7).
 * </ul>
 * A filter field (rank: filter) has no occurrences in its match data, as in proton, so its matches are all degraded
 * and its outputs the simple metrics. Refused: a phrase in the query (proton splits it into its words, with positions
 * of their own), a multi-value field, and the proximityTable property.
 */
final class FieldMatchFeature {

    /** The outputs, by their names (the default output is score, also called match). */
    enum Output {
        SCORE, PROXIMITY, COMPLETENESS, QUERY_COMPLETENESS, FIELD_COMPLETENESS, ORDERNESS, RELATEDNESS, EARLINESS,
        LONGEST_SEQUENCE_RATIO, SEGMENT_PROXIMITY, UNWEIGHTED_PROXIMITY, ABSOLUTE_PROXIMITY, OCCURRENCE,
        ABSOLUTE_OCCURRENCE, WEIGHTED_OCCURRENCE, WEIGHTED_ABSOLUTE_OCCURRENCE, SIGNIFICANT_OCCURRENCE, WEIGHT,
        SIGNIFICANCE, IMPORTANCE, SEGMENTS, MATCHES, OUT_OF_ORDER, GAPS, GAP_LENGTH, LONGEST_SEQUENCE, HEAD, TAIL,
        SEGMENT_DISTANCE, DEGRADED_MATCHES;

        private static final Map<String, Output> byName = Map.ofEntries(
                Map.entry("score", SCORE), Map.entry("match", SCORE), Map.entry("proximity", PROXIMITY),
                Map.entry("completeness", COMPLETENESS), Map.entry("queryCompleteness", QUERY_COMPLETENESS),
                Map.entry("fieldCompleteness", FIELD_COMPLETENESS), Map.entry("orderness", ORDERNESS),
                Map.entry("relatedness", RELATEDNESS), Map.entry("earliness", EARLINESS),
                Map.entry("longestSequenceRatio", LONGEST_SEQUENCE_RATIO), Map.entry("segmentProximity", SEGMENT_PROXIMITY),
                Map.entry("unweightedProximity", UNWEIGHTED_PROXIMITY), Map.entry("absoluteProximity", ABSOLUTE_PROXIMITY),
                Map.entry("occurrence", OCCURRENCE), Map.entry("absoluteOccurrence", ABSOLUTE_OCCURRENCE),
                Map.entry("weightedOccurrence", WEIGHTED_OCCURRENCE), Map.entry("weightedAbsoluteOccurrence", WEIGHTED_ABSOLUTE_OCCURRENCE),
                Map.entry("significantOccurrence", SIGNIFICANT_OCCURRENCE), Map.entry("weight", WEIGHT),
                Map.entry("significance", SIGNIFICANCE), Map.entry("importance", IMPORTANCE), Map.entry("segments", SEGMENTS),
                Map.entry("matches", MATCHES), Map.entry("outOfOrder", OUT_OF_ORDER), Map.entry("gaps", GAPS),
                Map.entry("gapLength", GAP_LENGTH), Map.entry("longestSequence", LONGEST_SEQUENCE), Map.entry("head", HEAD),
                Map.entry("tail", TAIL), Map.entry("segmentDistance", SEGMENT_DISTANCE), Map.entry("degradedMatches", DEGRADED_MATCHES));

        static Output of(String name, String feature) {
            Output output = byName.get(name == null ? "score" : name);
            if (output == null) throw new UnsupportedFeatureException("feature '" + feature + "': fieldMatch has no output '" + name + "'");
            return output;
        }
    }

    /** The properties proton's FieldMatchBlueprint reads (fieldMatch(field).name), but proximityTable. */
    private static final Set<String> settings = Set.of("proximityLimit", "maxAlternativeSegmentations", "maxOccurrences",
                                                       "proximityCompletenessImportance", "relatednessImportance",
                                                       "earlinessImportance", "segmentProximityImportance",
                                                       "occurrenceImportance", "fieldCompletenessImportance");

    /** Proton's fieldmatch::Params, read from the profile as the blueprint reads them. */
    record Params(int proximityLimit, int maxAlternativeSegmentations, int maxOccurrences,
                  double proximityCompletenessImportance, double relatednessImportance, double earlinessImportance,
                  double segmentProximityImportance, double occurrenceImportance, double fieldCompletenessImportance) {

        static Params of(RankProfile profile, String field) {
            String prefix = "fieldMatch(" + field + ").";
            for (String name : profile.propertyNames())
                if (name.startsWith(prefix) && ! settings.contains(name.substring(prefix.length())))
                    throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': rank property '" + name +
                                                          "' is not supported by this content engine (it reads " + settings + ")");
            Params params = new Params(integer(profile, prefix + "proximityLimit", 10), integer(profile, prefix + "maxAlternativeSegmentations", 10000),
                              integer(profile, prefix + "maxOccurrences", 100),
                              number(profile, prefix + "proximityCompletenessImportance", 0.9), number(profile, prefix + "relatednessImportance", 0.9),
                              number(profile, prefix + "earlinessImportance", 0.05), number(profile, prefix + "segmentProximityImportance", 0.05),
                              number(profile, prefix + "occurrenceImportance", 0.05), number(profile, prefix + "fieldCompletenessImportance", 0.05));
            try {
                params.java(); // proton's Params::valid, as the Java parameters check it
            }
            catch (IllegalArgumentException e) {
                throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': fieldMatch(" + field + "): " + e.getMessage());
            }
            return params;
        }

        private static int integer(RankProfile profile, String name, int fallback) {
            return profile.property(name).map(String::trim).map(Integer::parseInt).orElse(fallback);
        }

        private static double number(RankProfile profile, String name, double fallback) {
            return profile.property(name).map(String::trim).map(Double::parseDouble).orElse(fallback);
        }

        FieldMatchMetricsParameters java() {
            FieldMatchMetricsParameters parameters = new FieldMatchMetricsParameters();
            parameters.setProximityLimit(proximityLimit);
            parameters.setMaxAlternativeSegmentations(maxAlternativeSegmentations);
            parameters.setMaxOccurrences(maxOccurrences);
            parameters.setProximityCompletenessImportance((float) proximityCompletenessImportance);
            parameters.setRelatednessImportance((float) relatednessImportance);
            parameters.setEarlinessImportance((float) earlinessImportance);
            parameters.setSegmentProximityImportance((float) segmentProximityImportance);
            parameters.setOccurrenceImportance((float) occurrenceImportance);
            parameters.setFieldCompletenessImportance((float) fieldCompletenessImportance);
            parameters.freeze();
            return parameters;
        }
    }

    private FieldMatchFeature() {}

    /** Checks that fieldMatch can be computed for this field of this index (at deploy, with no query). */
    static void checkField(String field, DocumentIndex index, RankProfile profile, String feature) {
        TextIndex text = index.index(field).orElseThrow(() -> new UnsupportedFeatureException(
                "feature '" + feature + "': '" + field + "' is not an index field of '" + index.name() + "'"));
        if (text.isMultiValue())
            throw new UnsupportedFeatureException("feature '" + feature + "' of the multi-value field '" + field + "' is not supported by this content engine");
    }

    /**
     * What fieldMatch computes for one field of the documents of a query, for the document last asked for (computed
     * once per document, however many outputs are read).
     */
    static final class Computer implements Memo {

        private final Params params;
        private final FieldMatchMetricsComputer computer;
        private final NativeRankFeatures.Slot[] slots; // of the terms searching the field, in query order
        private final int[] weights;
        private final double[] significances;
        private final Query query;
        private final Field.Term[] labels;
        private final Field.Term filler = new Field.Term("\u0000");
        private final int totalTermWeight;
        private final double totalSignificance;
        private final double averageConnectedness;
        private final int totalWeightInField;

        private final List<Field.Term> fieldTerms = new ArrayList<>();
        private final int[] firstPositions;
        private int lid = -1;

        // the results for the document at lid
        private boolean ran;
        private FieldMatchMetrics metrics;
        private int fieldLength, simpleMatches, withPositions, matchedWeight;
        private double occurrence, absoluteOccurrence, weightedOccurrence, weightedAbsoluteOccurrence, significantOccurrence;

        Computer(String field, Params params, NativeRankFeatures.Terms terms, QueryProperties query) {
            this.params = params;
            this.computer = new FieldMatchMetricsComputer(params.java());
            List<NativeRankFeatures.Slot> mySlots = new ArrayList<>();
            List<QueryTerm> queryTerms = new ArrayList<>();
            List<Integer> myWeights = new ArrayList<>();
            List<Double> mySignificances = new ArrayList<>();
            int totalWeight = 0, fieldWeight = 0;
            float significanceSum = 0; // proton sums them in a float
            for (int t = 0; t < terms.size(); t++) {
                RankTerm term = terms.term(t);
                if (term.phraseLength() > 1)
                    throw new UnsupportedFeatureException("fieldMatch(" + field + ") with a phrase in the query is not supported by this content engine " +
                                                          "(proton splits a phrase into its words)");
                double significance = terms.significance(t);
                totalWeight += term.weight();
                significanceSum += (float) significance;
                for (int f = 0; f < term.fields().size(); f++) {
                    RankTerm.Field termField = term.fields().get(f);
                    if (termField.attribute() || ! termField.name().equals(field)) continue;
                    QueryTerm queryTerm = new QueryTerm(String.valueOf(mySlots.size()));
                    double connectedness = t == 0 ? 0.1 : terms.connectedness(term.uniqueId(), terms.term(t - 1).uniqueId(), 0.1);
                    queryTerm.setConnectedness((float) connectedness);
                    queryTerm.setWeight(term.weight());
                    queryTerm.setSignificance((float) significance);
                    queryTerms.add(queryTerm);
                    mySlots.add(terms.slot(t, f));
                    myWeights.add(term.weight());
                    mySignificances.add(significance);
                    fieldWeight += term.weight();
                    break;
                }
            }
            String prefix = "fieldMatch(" + field + ").";
            this.totalTermWeight = query.string(prefix + "totalTermWeight").map(String::trim).map(Integer::parseInt).orElse(totalWeight);
            this.totalSignificance = query.string(prefix + "totalTermSignificance").map(String::trim).map(Double::parseDouble).orElse((double) significanceSum);
            this.totalWeightInField = fieldWeight;
            this.slots = mySlots.toArray(NativeRankFeatures.Slot[]::new);
            this.weights = myWeights.stream().mapToInt(Integer::intValue).toArray();
            this.significances = mySignificances.stream().mapToDouble(Double::doubleValue).toArray();
            this.query = new Query(queryTerms.toArray(QueryTerm[]::new));
            this.query.setTotalTermWeight(totalTermWeight);
            this.query.setTotalSignificance((float) totalSignificance);
            this.labels = new Field.Term[slots.length];
            for (int i = 0; i < slots.length; i++) labels[i] = new Field.Term(String.valueOf(i));
            this.firstPositions = new int[slots.length];
            double connectedness = 0;
            for (int i = 1; i < queryTerms.size(); i++) connectedness += Math.max(0.1, queryTerms.get(i).getConnectedness());
            this.averageConnectedness = queryTerms.size() > 1 ? connectedness / (queryTerms.size() - 1) : 0.1;
        }

        @Override public void forget() { lid = -1; }

        private void compute(int lid) {
            if (lid == this.lid) return;
            this.lid = lid;
            ran = false;
            metrics = null;
            simpleMatches = 0;
            matchedWeight = 0;
            withPositions = 0;
            boolean invalidLength = false;
            fieldLength = TermFieldMatchData.UNKNOWN_LENGTH;
            boolean lengthSet = false;
            for (int i = 0; i < slots.length; i++) {
                if ( ! slots[i].unpack(lid)) continue;
                TermFieldMatchData data = slots[i].data();
                simpleMatches++;
                matchedWeight += weights[i];
                int length = data.fieldLength();
                if (data.size() > 0) {
                    withPositions++;
                    if (length == 0 || length == TermFieldMatchData.UNKNOWN_LENGTH) invalidLength = true;
                }
                if ( ! lengthSet) {
                    fieldLength = length;
                    lengthSet = true;
                }
            }
            occurrence = absoluteOccurrence = weightedOccurrence = weightedAbsoluteOccurrence = significantOccurrence = 0;
            // a first matching term without positions leaves the length unknown: treated as an invalid length here
            if (simpleMatches == 0 || withPositions == 0 || invalidLength || fieldLength == TermFieldMatchData.UNKNOWN_LENGTH) return;
            ran = true;
            fieldTerms.clear();
            for (int j = 0; j < fieldLength; j++) fieldTerms.add(filler);
            for (int i = 0; i < slots.length; i++) {
                firstPositions[i] = -1;
                if (slots[i].unpack(lid)) {
                    TermFieldMatchData data = slots[i].data();
                    for (int k = 0; k < data.size(); k++) {
                        int position = data.position(k);
                        if (position < fieldLength) fieldTerms.set(position, label(i, position));
                    }
                    if (data.size() > 0) firstPositions[i] = data.position(0);
                }
            }
            QueryTerm[] queryTerms = query.getTerms();
            for (int i = 0; i < slots.length; i++) // a term is its own label, or the label of the term first at its positions
                queryTerms[i].setTerm(firstPositions[i] >= 0 && firstPositions[i] < fieldLength ? fieldTerms.get(firstPositions[i]).value() : labels[i].value());
            metrics = computer.compute(query, new Field(fieldTerms), false);
            occurrences();
        }

        /**
         * The label of term i at a position: the label of the first term occurring there. Two terms at one position
         * are the same indexed word, so they occur at the same positions and one label stands for both.
         */
        private Field.Term label(int i, int position) {
            Field.Term there = fieldTerms.get(position);
            return there == filler ? labels[i] : there;
        }

        /** Proton's Computer::setOccurrenceCounts: over the distinct matched terms (by their first position). */
        private void occurrences() {
            int unique = 0;
            for (int i = 0; i < slots.length; i++) if (isFirstWithItsFirstPosition(i)) unique++;
            long divider = Math.min(fieldLength, (long) params.maxOccurrences() * unique);
            long maxOccurrence = Math.min(fieldLength, params.maxOccurrences());
            int totalWeight = 0;
            double totalWeightedOccurrences = 0, totalSignificantOccurrences = 0;
            double weightedSum = 0, significantSum = 0;
            for (int i = 0; i < slots.length; i++) {
                if ( ! isFirstWithItsFirstPosition(i)) continue;
                int occurrences = Math.min(slots[i].data().size(), params.maxOccurrences());
                occurrence += (double) occurrences / divider;
                absoluteOccurrence += (double) occurrences / ((long) params.maxOccurrences() * unique);
                weightedAbsoluteOccurrence += (double) occurrences * weights[i] / params.maxOccurrences();
                totalWeight += weights[i];
                totalWeightedOccurrences += (double) maxOccurrence * weights[i] / divider;
                weightedSum += (double) occurrences * weights[i] / divider;
                totalSignificantOccurrences += maxOccurrence * significances[i] / divider;
                significantSum += occurrences * significances[i] / divider;
            }
            weightedAbsoluteOccurrence /= totalWeight > 0 ? totalWeight : 1;
            weightedOccurrence = totalWeightedOccurrences > 0 ? weightedSum / totalWeightedOccurrences : 0;
            significantOccurrence = totalSignificantOccurrences > 0 ? significantSum / totalSignificantOccurrences : 0;
        }

        private boolean isFirstWithItsFirstPosition(int i) {
            if (firstPositions[i] < 0) return false;
            for (int k = 0; k < i; k++) if (firstPositions[k] == firstPositions[i]) return false;
            return true;
        }

        double value(int lid, Output output) {
            compute(lid);
            int matches = ran ? metrics.getMatches() : 0;
            return switch (output) {
                case SCORE -> ran ? score() : 0;
                case PROXIMITY -> ran ? proximity() : 0;
                case COMPLETENESS -> ran ? completeness() : queryCompletenessSimple() * (1 - params.fieldCompletenessImportance());
                case QUERY_COMPLETENESS -> ran ? queryCompleteness() : queryCompletenessSimple();
                case FIELD_COMPLETENESS -> ran ? fieldCompleteness() : 0;
                case ORDERNESS -> ran ? (metrics.getPairs() < 1 ? 1 : 1 - (double) metrics.getOutOfOrder() / metrics.getPairs()) : 0;
                case RELATEDNESS -> ran ? relatedness() : 0;
                case EARLINESS -> ran ? earliness() : 0;
                case LONGEST_SEQUENCE_RATIO -> matches == 0 ? 0 : (double) metrics.getLongestSequence() / matches;
                case SEGMENT_PROXIMITY -> ran ? segmentProximity() : 0;
                case UNWEIGHTED_PROXIMITY -> ran ? metrics.getUnweightedProximity() : 0;
                case ABSOLUTE_PROXIMITY -> ran ? metrics.getAbsoluteProximity() : 0;
                case OCCURRENCE -> occurrence;
                case ABSOLUTE_OCCURRENCE -> absoluteOccurrence;
                case WEIGHTED_OCCURRENCE -> weightedOccurrence;
                case WEIGHTED_ABSOLUTE_OCCURRENCE -> weightedAbsoluteOccurrence;
                case SIGNIFICANT_OCCURRENCE -> significantOccurrence;
                case WEIGHT -> ran ? metrics.getWeight() : (totalTermWeight > 0 ? matchedWeight / (double) totalTermWeight : 0);
                case SIGNIFICANCE -> ran ? metrics.getSignificance() : 0;
                case IMPORTANCE -> ran ? (metrics.getSignificance() + (double) metrics.getWeight()) / 2 : 0;
                case SEGMENTS -> ran ? metrics.getSegments() : 0;
                case MATCHES -> ran ? matches : simpleMatches;
                case OUT_OF_ORDER -> ran ? metrics.getOutOfOrder() : 0;
                case GAPS -> ran ? metrics.getGaps() : 0;
                case GAP_LENGTH -> ran ? metrics.getGapLength() : 0;
                case LONGEST_SEQUENCE -> ran ? metrics.getLongestSequence() : 0;
                case HEAD -> ran ? metrics.getHead() : 0;
                case TAIL -> ran ? metrics.getTail() : 0;
                case SEGMENT_DISTANCE -> ran ? metrics.getSegmentDistance() : 0;
                case DEGRADED_MATCHES -> simpleMatches - withPositions;
            };
        }

        private double queryCompletenessSimple() { return slots.length > 0 ? simpleMatches / (double) slots.length : 0; }
        private double queryCompleteness() { return slots.length > 0 ? (double) metrics.getMatches() / slots.length : 0; }
        private double fieldCompleteness() { return fieldLength == 0 ? 0 : (double) metrics.getMatches() / fieldLength; }

        private double completeness() {
            double importance = params.fieldCompletenessImportance();
            return queryCompleteness() * (1 - importance) + importance * fieldCompleteness();
        }

        private double relatedness() {
            int matches = metrics.getMatches();
            if (matches == 0) return 0;
            if (matches == 1) return 1;
            return 1 - (double) (metrics.getSegments() - 1) / (matches - 1);
        }

        private double earliness() {
            if (metrics.getMatches() == 0) return 0;
            if (fieldLength == 1) return 1;
            return 1 - (double) metrics.getHead() / (Math.max(6, fieldLength) - 1);
        }

        private double segmentProximity() {
            if (fieldLength == 0 || metrics.getMatches() == 0) return 0;
            return 1 - (double) metrics.getSegmentDistance() / fieldLength;
        }

        private double proximity() { return metrics.getAbsoluteProximity() / averageConnectedness; }

        private double score() {
            double scaledRelatedness = 1 - params.relatednessImportance() + params.relatednessImportance() * relatedness();
            double completeness = completeness();
            return (params.proximityCompletenessImportance() * scaledRelatedness * proximity() * completeness * completeness
                    + params.earlinessImportance() * earliness()
                    + params.segmentProximityImportance() * segmentProximity()
                    + params.occurrenceImportance() * occurrence)
                   / (params.proximityCompletenessImportance() + params.earlinessImportance()
                      + params.segmentProximityImportance() + params.occurrenceImportance());
        }

    }

}
