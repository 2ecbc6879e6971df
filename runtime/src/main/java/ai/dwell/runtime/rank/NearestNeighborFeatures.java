package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiVectorIndex;
import ai.dwell.runtime.index.TensorAttribute;
import ai.dwell.runtime.match.NearestNeighborTerm;
import com.yahoo.tensor.TensorType;

import java.util.List;
import java.util.Optional;

/**
 * closest(f) and closest(f, label) (see {@link ClosestNode}), and closeness(field, f), closeness(label, l), distance(field, f) and distance(label, l) (and closeness(f), distance(f) of a tensor attribute), as Vespa
 * computes them for a nearestNeighbor item of the query: from the query vector and the document's
 * (closest) vector with the attribute's distance metric, for every ranked document (also those another part of
 * the query matched). Without such an item, closeness is 0 and distance Double.MAX_VALUE, as in proton.
 */
final class NearestNeighborFeatures {

    private NearestNeighborFeatures() {}

    /** A node for closeness (or distance) of the given dimension ("field" or "label") and name. */
    static Node of(FeatureName feature, DocumentIndex index, List<NearestNeighborTerm> terms, QueryProperties query) {
        // closeness(name) and distance(name) of a single-value tensor attribute are the field form, as proton's DistanceBlueprint
        if (feature.arguments().size() == 1 && index.attribute(feature.argument()).orElse(null) instanceof TensorAttribute)
            return of(FeatureName.parse(feature.name() + "(field," + feature.argument() + ")" + (feature.output() == null ? "" : "." + feature.output())),
                      index, terms, query);
        if (feature.arguments().size() != 2 || feature.output() != null && ! feature.output().equals("score") && ! feature.output().equals("distance"))
            throw new UnsupportedFeatureException("feature '" + feature + "' is not supported by this content engine (supported: " +
                                                  feature.name() + "(field,<attribute>), " + feature.name() + "(<tensor attribute>) and " + feature.name() + "(label,<label>))");
        boolean distance = feature.name().equals("distance") || "distance".equals(feature.output());
        String dimension = feature.arguments().get(0), name = feature.arguments().get(1);
        Optional<NearestNeighborTerm> term = switch (dimension) {
            case "field" -> {
                if ( ! (index.attribute(name).orElse(null) instanceof TensorAttribute attribute) || attribute.vectorSearch().isEmpty())
                    throw new UnsupportedFeatureException("feature '" + feature + "': '" + name + "' is not a dense vector or multi-vector tensor attribute of '" + index.name() + "'");
                yield terms.stream().filter(t -> t.field().equals(name)).findFirst();
            }
            case "label" -> query.string("vespa.label." + name + ".id").map(Integer::parseInt)
                                 .flatMap(id -> terms.stream().filter(t -> t.uniqueId() == id).findFirst());
            default -> throw new UnsupportedFeatureException("feature '" + feature + "': the first argument must be 'field' or 'label'");
        };
        if (term.isEmpty()) return new ScalarNode.Constant(distance ? Double.MAX_VALUE : 0);
        return distance ? new Distance(term.get()) : new Closeness(term.get());
    }

    /** closest(field) or closest(field, label) of a tensor<T>(m{},x[n]) attribute: see {@link ClosestNode}. */
    static Node closest(FeatureName feature, DocumentIndex index, List<NearestNeighborTerm> terms, QueryProperties query) {
        if (feature.arguments().isEmpty() || feature.arguments().size() > 2 || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': closest takes a tensor attribute and optionally the label of a nearestNeighbor item");
        String field = feature.arguments().get(0);
        if ( ! (index.attribute(field).orElse(null) instanceof TensorAttribute attribute) || attribute.multiVectors().isEmpty())
            throw new UnsupportedFeatureException("feature '" + feature + "': '" + field + "' is not a tensor attribute with one mapped and one indexed dimension, " +
                                                  "tensor<T>(m{},x[n]), of '" + index.name() + "' (the mapped dimensions are what closest outputs)");
        MultiVectorIndex vectors = attribute.multiVectors().get();
        TensorType type = new TensorType.Builder(attribute.type().valueType()).mapped(vectors.mappedDimensionName()).build();
        List<NearestNeighborTerm> searching;
        if (feature.arguments().size() == 1) {
            searching = terms.stream().filter(t -> t.field().equals(field)).toList();
        }
        else {
            Optional<Integer> id = query.string("vespa.label." + feature.arguments().get(1) + ".id").map(Integer::parseInt);
            searching = terms.stream().filter(t -> id.isPresent() && t.uniqueId() == id.get() && t.field().equals(field)).toList();
        }
        return new ClosestNode(type, vectors, searching);
    }

    /**
     * rawScore(field) of a tensor attribute: the sum over the query's nearestNeighbor items on it of the raw score each
     * gives a document, as proton's RawScoreExecutor sums its items' term field match data; see {@link NearestNeighborTerm#rawScore}.
     */
    static Node rawScore(String field, List<NearestNeighborTerm> terms) {
        return new RawScore(terms.stream().filter(t -> t.field().equals(field)).toArray(NearestNeighborTerm[]::new));
    }

    /** itemRawScore(label) of the nearestNeighbor item with this unique id, if the query has one. */
    static Optional<Node> itemRawScore(int uniqueId, List<NearestNeighborTerm> terms) {
        return terms.stream().filter(t -> t.uniqueId() == uniqueId).findFirst().map(t -> new RawScore(new NearestNeighborTerm[] { t }));
    }

    private static final class RawScore extends ScalarNode {
        private final NearestNeighborTerm[] terms;
        RawScore(NearestNeighborTerm[] terms) { this.terms = terms; }
        @Override double number(int lid) {
            double sum = 0;
            for (NearestNeighborTerm term : terms) sum += term.rawScore(lid);
            return sum;
        }
    }

    private static final class Closeness extends ScalarNode {
        private final NearestNeighborTerm term;
        Closeness(NearestNeighborTerm term) { this.term = term; }
        @Override double number(int lid) { return term.closeness(lid); }
    }

    private static final class Distance extends ScalarNode {
        private final NearestNeighborTerm term;
        Distance(NearestNeighborTerm term) { this.term = term; }
        @Override double number(int lid) { return term.distance(lid); }
    }

}
