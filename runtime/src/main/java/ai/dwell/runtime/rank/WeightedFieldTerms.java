package ai.dwell.runtime.rank;

import ai.dwell.runtime.match.RankTerm;

import java.util.ArrayList;
import java.util.List;

/**
 * The query terms that search one index field, with a weight: the match data slot of each term on the field, its
 * weight, and their total, as textSimilarity and elementSimilarity read them (a term of weight 0 contributes nothing
 * and is left out; an attribute of the same name is not the field).
 */
record WeightedFieldTerms(NativeRankFeatures.Slot[] slots, int[] weights, int totalWeight) {

    static WeightedFieldTerms of(String field, NativeRankFeatures.Terms terms) {
        List<NativeRankFeatures.Slot> slots = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        int total = 0;
        for (int t = 0; t < terms.size(); t++) {
            RankTerm term = terms.term(t);
            if (term.weight() == 0) continue;
            for (int f = 0; f < term.fields().size(); f++) {
                RankTerm.Field termField = term.fields().get(f);
                if (termField.attribute() || ! termField.name().equals(field)) continue;
                slots.add(terms.slot(t, f));
                weights.add(term.weight());
                total += term.weight();
            }
        }
        return new WeightedFieldTerms(slots.toArray(NativeRankFeatures.Slot[]::new), weights.stream().mapToInt(Integer::intValue).toArray(), total);
    }

    /**
     * The smallest element the next occurrence of any term is in, where at[i] is the index of term i's next occurrence
     * in its slot's match data (-1 when it has none left), or -1 when no term has one left.
     */
    static int nextElement(NativeRankFeatures.Slot[] slots, int[] at) {
        int element = -1;
        for (int i = 0; i < slots.length; i++) {
            if (at[i] < 0) continue;
            int candidate = slots[i].data().element(at[i]);
            if (element < 0 || candidate < element) element = candidate;
        }
        return element;
    }

}
