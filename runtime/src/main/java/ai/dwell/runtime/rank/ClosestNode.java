package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiVectorIndex;
import ai.dwell.runtime.match.NearestNeighborTerm;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * closest(f) and closest(f, label), as proton's closest feature: of a tensor&lt;T&gt;(m{},x[n]) attribute, a tensor&lt;T&gt;(m{})
 * with one cell, 1.0, at the label of the document's vector closest to the query vectors of the nearestNeighbor items on
 * the field (or of the item with that label); an empty tensor when the document has no vector or the query no such item.
 * Of equally close vectors the first the document holds is taken. The tensor of each label is built once per query.
 */
final class ClosestNode extends Node {

    private final TensorType type;
    private final MultiVectorIndex vectors;
    private final List<NearestNeighborTerm> terms;
    private final Tensor empty;
    private final Map<String, Tensor> byLabel = new HashMap<>();

    ClosestNode(TensorType type, MultiVectorIndex vectors, List<NearestNeighborTerm> terms) {
        this.type = type;
        this.vectors = vectors;
        this.terms = terms;
        this.empty = Tensor.Builder.of(type).build();
    }

    @Override TensorType type() { return type; }

    @Override double number(int lid) { return tensor(lid).asDouble(); }

    @Override
    Tensor tensor(int lid) {
        float[][] own = vectors.vectors(lid);
        int closest = -1;
        double best = Double.POSITIVE_INFINITY;
        for (NearestNeighborTerm term : terms) {
            for (int i = 0; i < own.length; i++) {
                double distance = vectors.metric().distance(term.query(), own[i]);
                if (closest < 0 || distance < best) {
                    best = distance;
                    closest = i;
                }
            }
        }
        if (closest < 0) return empty;
        String label = vectors.label(lid, closest);
        Tensor tensor = byLabel.get(label);
        if (tensor == null) byLabel.put(label, tensor = Tensor.Builder.of(type).cell(TensorAddress.ofLabels(label), 1.0).build());
        return tensor;
    }

}
