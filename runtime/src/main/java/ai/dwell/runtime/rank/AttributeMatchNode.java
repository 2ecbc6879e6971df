package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.match.QueryTerm;
import ai.dwell.runtime.match.RankTerm;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Predicate;

/**
 * proton's attributeMatch(name) (searchlib AttributeMatchExecutor), per document: which of the query's terms searching
 * the attribute match it (as the attribute matches terms), with the query term weights and, for a weighted set, the
 * weights of the elements they matched. Outputs completeness (the feature's value), queryCompleteness,
 * fieldCompleteness, normalizedWeight, normalizedWeightedWeight, weight, significance (the legacy significance of the
 * ranked terms on the attribute that matched, over that of all the query's ranked terms), importance (the mean of
 * weight and significance), matches, totalWeight, averageWeight and maxWeight, with the properties maxWeight (default
 * 256) and fieldCompletenessImportance (default 0.05). Whether a term matches is found a block of documents at a time,
 * with the attribute's own term matching; for significance, as the ranked terms' match data have it.
 */
final class AttributeMatchNode extends ScalarNode {

    enum Output { COMPLETENESS, QUERY_COMPLETENESS, FIELD_COMPLETENESS, NORMALIZED_WEIGHT, NORMALIZED_WEIGHTED_WEIGHT, WEIGHT,
                  SIGNIFICANCE, IMPORTANCE, MATCHES, TOTAL_WEIGHT, AVERAGE_WEIGHT, MAX_WEIGHT }

    private final Attribute attribute;
    private final MultiValueAttribute multi; // null for a single-value attribute
    private final boolean weightedSet;
    private final Output output;
    private final int maxWeight;
    private final double fieldCompletenessImportance;
    private final String[] words; // the query terms searching this attribute
    private final int[] termWeights;
    private final Predicate<Object>[] keys; // to look the terms up in a weighted set's elements
    private final int numAttributeTerms; // terms searching any attribute
    private final long totalTermWeight; // of all terms
    private final long totalAttributeTermWeight;
    private final BitSet candidates = new BitSet();
    private final BitSet[] matched;
    private final NativeRankFeatures.Slot[] rankSlots; // of the ranked terms searching the attribute
    private final double[] rankSignificance; // of each of those terms
    private final double totalSignificance; // of all ranked terms

    @SuppressWarnings("unchecked")
    AttributeMatchNode(Attribute attribute, List<QueryTerm> terms, NativeRankFeatures.Terms rankTerms,
                       Output output, int maxWeight, double fieldCompletenessImportance) {
        this.attribute = attribute;
        this.multi = attribute instanceof MultiValueAttribute m ? m : null;
        this.weightedSet = multi != null && multi.collection() == MultiValueAttribute.Collection.WEIGHTED_SET;
        this.output = output;
        this.maxWeight = maxWeight;
        this.fieldCompletenessImportance = fieldCompletenessImportance;
        terms = terms.stream().filter(QueryTerm::isPlain).toList();
        List<QueryTerm> mine = terms.stream().filter(term -> term.field().equals(attribute.name())).toList();
        words = mine.stream().map(QueryTerm::term).toArray(String[]::new);
        termWeights = mine.stream().mapToInt(QueryTerm::weight).toArray();
        keys = new Predicate[words.length];
        for (int t = 0; t < words.length; t++) keys[t] = weightedSet ? multi.key(words[t]) : null;
        matched = new BitSet[words.length];
        for (int t = 0; t < words.length; t++) matched[t] = new BitSet();
        // the totals are over the query's ranked terms, as proton's term data (a term searching a fieldset is one term)
        int attributeTerms = 0;
        long total = 0, attributeWeight = 0;
        for (int t = 0; t < rankTerms.size(); t++) {
            RankTerm term = rankTerms.term(t);
            total += term.weight();
            if (term.fields().stream().anyMatch(RankTerm.Field::attribute)) {
                attributeTerms++;
                attributeWeight += term.weight();
            }
        }
        numAttributeTerms = attributeTerms;
        totalTermWeight = total;
        totalAttributeTermWeight = attributeWeight;
        List<NativeRankFeatures.Slot> slots = new ArrayList<>();
        List<Double> significances = new ArrayList<>();
        double significance = 0;
        for (int t = 0; t < rankTerms.size(); t++) {
            significance += rankTerms.significance(t);
            List<RankTerm.Field> fields = rankTerms.term(t).fields();
            for (int f = 0; f < fields.size(); f++) {
                if ( ! fields.get(f).attribute() || ! fields.get(f).name().equals(attribute.name())) continue;
                slots.add(rankTerms.slot(t, f));
                significances.add(rankTerms.significance(t));
            }
        }
        rankSlots = slots.toArray(NativeRankFeatures.Slot[]::new);
        rankSignificance = significances.stream().mapToDouble(Double::doubleValue).toArray();
        totalSignificance = significance;
    }

    @Override
    double number(int lid) {
        candidates.clear();
        candidates.set(lid);
        findMatches();
        return valueOf(lid);
    }

    @Override
    void numbers(Batch batch, double[] out) {
        int[] lids = batch.lids();
        candidates.clear();
        for (int k = 0; k < batch.count(); k++) candidates.set(lids[k]);
        findMatches();
        for (int k = 0; k < batch.count(); k++) out[k] = valueOf(lids[k]);
    }

    private void findMatches() {
        for (int t = 0; t < words.length; t++) {
            matched[t].clear();
            attribute.matchTerm(words[t], candidates, matched[t]); // a term the attribute cannot match matches nothing here
        }
    }

    private double valueOf(int lid) {
        int matches = 0;
        long matchedTermWeight = 0, totalWeight = 0, maxMatchedWeight = 0, weightedWeight = 0;
        for (int t = 0; t < words.length; t++) {
            if ( ! matched[t].get(lid)) continue;
            matches++;
            matchedTermWeight += termWeights[t];
            if (weightedSet) {
                long weight = multi.weight(lid, keys[t]);
                totalWeight += weight;
                maxMatchedWeight = matches == 1 ? weight : Math.max(maxMatchedWeight, weight);
                weightedWeight += weight * termWeights[t];
            }
        }
        double queryCompleteness = words.length == 0 ? 0 : matches / (double) words.length;
        return switch (output) {
            case COMPLETENESS -> queryCompleteness * (1 - fieldCompletenessImportance + fieldCompletenessImportance * fieldCompleteness(lid, matches, totalWeight));
            case QUERY_COMPLETENESS -> queryCompleteness;
            case FIELD_COMPLETENESS -> fieldCompleteness(lid, matches, totalWeight);
            case NORMALIZED_WEIGHT -> ! weightedSet || totalWeight <= 0 ? 0 : Math.min(1, totalWeight / ((double) maxWeight * numAttributeTerms));
            case NORMALIZED_WEIGHTED_WEIGHT -> {
                if ( ! weightedSet || weightedWeight <= 0) yield 0;
                double divider = totalAttributeTermWeight > 0 ? (double) maxWeight * totalAttributeTermWeight : maxWeight;
                yield Math.min(1, weightedWeight / divider);
            }
            case WEIGHT -> weight(matchedTermWeight);
            case SIGNIFICANCE -> significance(lid);
            case IMPORTANCE -> (weight(matchedTermWeight) + significance(lid)) * 0.5;
            case MATCHES -> matches;
            case TOTAL_WEIGHT -> totalWeight;
            case AVERAGE_WEIGHT -> matches != 0 ? totalWeight / (double) matches : 0;
            case MAX_WEIGHT -> maxMatchedWeight;
        };
    }

    private double weight(long matchedTermWeight) {
        return totalTermWeight > 0 ? (double) matchedTermWeight / totalTermWeight : 0;
    }

    private double significance(int lid) {
        if (totalSignificance <= 0) return 0;
        double matchedSignificance = 0;
        for (int i = 0; i < rankSlots.length; i++) if (rankSlots[i].unpack(lid)) matchedSignificance += rankSignificance[i];
        return matchedSignificance / totalSignificance;
    }

    /** The share of the field matched: of a weighted set's total weight, else of its values (1 for a single value). */
    private double fieldCompleteness(int lid, int matches, long totalWeight) {
        if (weightedSet) {
            if (totalWeight <= 0) return 0;
            long weightSum = 0;
            Object[] elements = multi.elements(lid);
            for (int i = 0; i < elements.length; i++) weightSum += multi.weightAt(lid, i);
            return weightSum <= 0 ? 1 : Math.min(1, totalWeight / (double) weightSum);
        }
        int valueCount = multi != null ? multi.count(lid) : 1;
        return valueCount > 0 ? Math.min(1, matches / (double) valueCount) : 0;
    }

}
