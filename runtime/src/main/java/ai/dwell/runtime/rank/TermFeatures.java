package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.RankTerm;

import java.util.ArrayList;
import java.util.List;

/**
 * The features of the query's ranked terms, as proton's executors compute them:
 * <ul>
 *   <li>queryTermCount: the number of ranked terms (QueryTermCountBlueprint);
 *   <li>term(n).significance, .weight and .connectedness: the n-th term's legacy significance, its weight, and its
 *       connectedness to the term before it (vespa.term.&lt;id&gt;.connexity, else 0.1); all 0 past the last term
 *       (TermExecutor);
 *   <li>matches(field) and matches(field, n): 1 when any ranked term (or the n-th) matched the document in the field,
 *       an index field or an attribute, else 0 (MatchesExecutor).
 * </ul>
 */
final class TermFeatures {

    private TermFeatures() {}

    static Node queryTermCount(FeatureName feature, NativeRankFeatures.Terms terms) {
        if ( ! feature.arguments().isEmpty() || feature.output() != null)
            throw new UnsupportedFeatureException("feature '" + feature + "': queryTermCount takes no arguments and has one output");
        return new ScalarNode.Constant(terms.size());
    }

    static Node term(FeatureName feature, NativeRankFeatures.Terms terms) {
        if (feature.arguments().size() != 1)
            throw new UnsupportedFeatureException("feature '" + feature + "': term takes the index of a query term");
        int n;
        try {
            n = Integer.parseInt(feature.argument());
        }
        catch (NumberFormatException e) {
            throw new UnsupportedFeatureException("feature '" + feature + "': term takes the index of a query term, not '" + feature.argument() + "'");
        }
        if (n < 0) throw new UnsupportedFeatureException("feature '" + feature + "': a term index is not negative");
        String output = feature.output() == null ? "connectedness" : feature.output();
        if ( ! List.of("connectedness", "significance", "weight").contains(output))
            throw new UnsupportedFeatureException("feature '" + feature + "': term has the outputs connectedness, significance and weight");
        if (n >= terms.size()) return new ScalarNode.Constant(0);
        return new ScalarNode.Constant(switch (output) {
            case "significance" -> terms.significance(n);
            case "weight" -> terms.term(n).weight();
            default -> n == 0 ? 0.1 : terms.connectedness(terms.term(n).uniqueId(), terms.term(n - 1).uniqueId(), 0.1);
        });
    }

    static Node matches(FeatureName feature, DocumentIndex index, NativeRankFeatures.Terms terms) {
        if (feature.arguments().isEmpty() || feature.arguments().size() > 2 || feature.output() != null)
            throw new UnsupportedFeatureException("feature '" + feature + "': matches takes a field and optionally a term index");
        String field = feature.arguments().get(0);
        if (index.index(field).isEmpty() && index.attribute(field).isEmpty())
            throw new UnsupportedFeatureException("feature '" + feature + "': '" + field + "' is not an index field or attribute of '" + index.name() + "'");
        int begin = 0, end = terms.size();
        if (feature.arguments().size() == 2) {
            try {
                begin = Integer.parseInt(feature.arguments().get(1));
            }
            catch (NumberFormatException e) {
                throw new UnsupportedFeatureException("feature '" + feature + "': the second argument is the index of a query term");
            }
            end = Math.min(begin + 1, terms.size());
        }
        List<NativeRankFeatures.Slot> slots = new ArrayList<>();
        for (int t = begin; t < end; t++) {
            List<RankTerm.Field> fields = terms.term(t).fields();
            for (int f = 0; f < fields.size(); f++)
                if (fields.get(f).name().equals(field)) slots.add(terms.slot(t, f));
        }
        return new Matches(slots.toArray(NativeRankFeatures.Slot[]::new));
    }

    /** 1 when one of the slots matched the document. */
    static final class Matches extends ScalarNode {

        private final NativeRankFeatures.Slot[] slots;

        Matches(NativeRankFeatures.Slot[] slots) { this.slots = slots; }

        @Override double number(int lid) {
            for (NativeRankFeatures.Slot slot : slots)
                if (slot.unpack(lid)) return 1;
            return 0;
        }

    }

}
