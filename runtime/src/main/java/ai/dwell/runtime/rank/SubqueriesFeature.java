package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.PredicateAttribute;
import ai.dwell.runtime.match.PredicateTerm;

import java.util.List;

/**
 * subqueries(field), subqueries(field).lsb and subqueries(field).msb, as proton's subqueries feature: the union of the
 * subquery bitmaps of the query's predicate items on the field, over those that matched the document, split into its
 * 32 least (the default output) and 32 most significant bits, each as an unsigned number. 0 without such an item.
 */
final class SubqueriesFeature {

    private SubqueriesFeature() {}

    static Node of(FeatureName feature, DocumentIndex index, List<PredicateTerm> predicates) {
        if (feature.arguments().size() != 1 || feature.output() != null && ! feature.output().equals("lsb") && ! feature.output().equals("msb"))
            throw new UnsupportedFeatureException("feature '" + feature + "': subqueries takes a predicate field, with the outputs lsb (the default) and msb");
        String field = feature.argument();
        if ( ! (index.attribute(field).orElse(null) instanceof PredicateAttribute))
            throw new UnsupportedFeatureException("feature '" + feature + "': '" + field + "' is not a predicate field of '" + index.name() + "'");
        List<PredicateTerm> terms = predicates.stream().filter(term -> term.field().equals(field)).toList();
        if (terms.isEmpty()) return new ScalarNode.Constant(0);
        return new Bits(terms.toArray(PredicateTerm[]::new), "msb".equals(feature.output()));
    }

    private static final class Bits extends ScalarNode {

        private final PredicateTerm[] terms;
        private final boolean msb;

        Bits(PredicateTerm[] terms, boolean msb) {
            this.terms = terms;
            this.msb = msb;
        }

        @Override
        double number(int lid) {
            long bits = 0;
            for (PredicateTerm term : terms) bits |= term.subqueries(lid);
            return msb ? bits >>> 32 : bits & 0xFFFFFFFFL;
        }

    }

}
