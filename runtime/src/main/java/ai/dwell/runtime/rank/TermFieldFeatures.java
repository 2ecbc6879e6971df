package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.RankTerm;
import ai.dwell.runtime.match.TermFieldMatchData;

import java.util.ArrayList;
import java.util.List;

/**
 * The per-document features of what the query's ranked terms matched in one field, as proton's executors compute them
 * from the term field match data:
 * <ul>
 *   <li>fieldTermMatch(field, n) (FieldTermMatchExecutor): of the n-th ranked term in an index field, firstPosition and
 *       lastPosition (the smallest and largest position of its occurrences, in their elements), occurrences, weight (the
 *       sum of the occurrences' element weights) and exactness (their average exactness, 1 for each occurrence here);
 *       where the term did not match the document in the field: 1000000, 1000000, 0, 0, 0; where it matched without
 *       positions: 1000000, 1000000, 1, 0, 0; and the same as not matched where n is past the query's last term or the
 *       term does not search the field;
 *   <li>fieldLength(field) (FieldLengthExecutor), of a single-value index field: the largest field length any term that
 *       matched the document in the field with positions gives, else 1000000 (unknown: no term searching the field
 *       matched it, or no term searches it);
 *   <li>matchCount(field) (MatchCountExecutor), of an index field or attribute: the number of the ranked terms searching
 *       the field that matched the document in it.
 * </ul>
 * Each reads the terms' slots of {@link NativeRankFeatures.Terms}, which unpack a term's matches in a field once per
 * document into reused arrays: nothing is allocated per document.
 */
final class TermFieldFeatures {

    /** What searchlib gives a position or length that is not known. */
    static final int UNKNOWN = TermFieldMatchData.UNKNOWN_LENGTH;

    private TermFieldFeatures() {}

    enum TermOutput {
        FIRST_POSITION("firstPosition"), LAST_POSITION("lastPosition"), OCCURRENCES("occurrences"), WEIGHT("weight"), EXACTNESS("exactness");

        private final String name;

        TermOutput(String name) { this.name = name; }

        static TermOutput of(String output, FeatureName feature) {
            if (output == null) return FIRST_POSITION; // the first output is the default, as in proton
            for (TermOutput candidate : values())
                if (candidate.name.equals(output)) return candidate;
            throw new UnsupportedFeatureException("feature '" + feature + "': fieldTermMatch has the outputs firstPosition, lastPosition, " +
                                                  "occurrences, weight and exactness, not '" + output + "'");
        }
    }

    static Node fieldTermMatch(FeatureName feature, DocumentIndex index, NativeRankFeatures.Terms terms) {
        if (feature.arguments().size() != 2)
            throw new UnsupportedFeatureException("feature '" + feature + "': fieldTermMatch takes an index field and the index of a query term");
        String field = feature.arguments().get(0);
        requireIndexField(feature, index, field);
        long n;
        try {
            n = Long.parseLong(feature.arguments().get(1).trim());
        }
        catch (NumberFormatException e) {
            throw new UnsupportedFeatureException("feature '" + feature + "': the second argument of fieldTermMatch is the index of a query term, not '" +
                                                  feature.arguments().get(1) + "'");
        }
        TermOutput output = TermOutput.of(feature.output(), feature);
        NativeRankFeatures.Slot slot = null;
        if (n >= 0 && n < terms.size()) {
            List<RankTerm.Field> fields = terms.term((int) n).fields();
            for (int f = 0; f < fields.size(); f++)
                if (fields.get(f).name().equals(field)) slot = terms.slot((int) n, f);
        }
        if (slot == null) return new ScalarNode.Constant(output == TermOutput.FIRST_POSITION || output == TermOutput.LAST_POSITION ? UNKNOWN : 0);
        return new FieldTermMatch(slot, output);
    }

    /** One output of what one term matched in one field. */
    static final class FieldTermMatch extends ScalarNode {

        private final NativeRankFeatures.Slot slot;
        private final TermOutput output;

        FieldTermMatch(NativeRankFeatures.Slot slot, TermOutput output) {
            this.slot = slot;
            this.output = output;
        }

        @Override double number(int lid) {
            if ( ! slot.unpack(lid)) return output == TermOutput.FIRST_POSITION || output == TermOutput.LAST_POSITION ? UNKNOWN : 0;
            TermFieldMatchData data = slot.data();
            int occurrences = data.size();
            if (occurrences == 0) return output == TermOutput.OCCURRENCES ? 1 : output == TermOutput.WEIGHT || output == TermOutput.EXACTNESS ? 0 : UNKNOWN;
            switch (output) {
                case FIRST_POSITION -> {
                    int first = Integer.MAX_VALUE;
                    for (int i = 0; i < occurrences; i++) first = Math.min(first, data.position(i));
                    return first;
                }
                case LAST_POSITION -> {
                    int last = 0;
                    for (int i = 0; i < occurrences; i++) last = Math.max(last, data.position(i));
                    return last;
                }
                case OCCURRENCES -> { return occurrences; }
                case WEIGHT -> {
                    long weight = 0;
                    for (int i = 0; i < occurrences; i++) weight += data.elementWeight(i);
                    return weight;
                }
                default -> { return 1; } // exactness: every occurrence here is an exact match of the term
            }
        }

    }

    static Node fieldLength(FeatureName feature, DocumentIndex index, NativeRankFeatures.Terms terms) {
        if (feature.arguments().size() != 1 || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': fieldLength takes a single-value index field and has one output");
        String field = feature.argument();
        TextIndex text = requireIndexField(feature, index, field);
        if (text.isMultiValue())
            throw new UnsupportedFeatureException("feature '" + feature + "': fieldLength takes a single-value index field, and '" + field + "' is not");
        NativeRankFeatures.Slot[] slots = slotsOf(field, terms);
        return slots.length == 0 ? new ScalarNode.Constant(UNKNOWN) : new FieldLength(slots);
    }

    /** The largest field length the matches with positions of the slots give the document, else {@link #UNKNOWN}. */
    static final class FieldLength extends ScalarNode {

        private final NativeRankFeatures.Slot[] slots;

        FieldLength(NativeRankFeatures.Slot[] slots) { this.slots = slots; }

        @Override double number(int lid) {
            int length = 0;
            boolean known = false;
            for (NativeRankFeatures.Slot slot : slots) {
                if ( ! slot.unpack(lid) || slot.data().size() == 0) continue;
                length = Math.max(length, slot.data().fieldLength());
                known = true;
            }
            return known ? length : UNKNOWN;
        }

    }

    static Node matchCount(FeatureName feature, DocumentIndex index, NativeRankFeatures.Terms terms) {
        if (feature.arguments().size() != 1 || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': matchCount takes a field and has one output");
        String field = feature.argument();
        if (index.index(field).isEmpty() && index.attribute(field).isEmpty())
            throw new UnsupportedFeatureException("feature '" + feature + "': '" + field + "' is not an index field or attribute of '" + index.name() + "'");
        NativeRankFeatures.Slot[] slots = slotsOf(field, terms);
        return slots.length == 0 ? new ScalarNode.Constant(0) : new MatchCount(slots);
    }

    /** The number of the slots that matched the document. */
    static final class MatchCount extends ScalarNode {

        private final NativeRankFeatures.Slot[] slots;

        MatchCount(NativeRankFeatures.Slot[] slots) { this.slots = slots; }

        @Override double number(int lid) {
            int count = 0;
            for (NativeRankFeatures.Slot slot : slots)
                if (slot.unpack(lid)) count++;
            return count;
        }

    }

    /** The slots of every ranked term that searches the field, in term order. */
    private static NativeRankFeatures.Slot[] slotsOf(String field, NativeRankFeatures.Terms terms) {
        List<NativeRankFeatures.Slot> slots = new ArrayList<>();
        for (int t = 0; t < terms.size(); t++) {
            List<RankTerm.Field> fields = terms.term(t).fields();
            for (int f = 0; f < fields.size(); f++)
                if (fields.get(f).name().equals(field)) slots.add(terms.slot(t, f));
        }
        return slots.toArray(NativeRankFeatures.Slot[]::new);
    }

    static TextIndex requireIndexField(FeatureName feature, DocumentIndex index, String field) {
        return index.index(field).orElseThrow(() -> new UnsupportedFeatureException(
                "feature '" + feature + "': '" + field + "' is not an index field of '" + index.name() + "'"));
    }

}
