package ai.dwell.runtime.match;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.NearestNeighborIndex;
import ai.dwell.runtime.index.TensorAttribute;
import ai.dwell.runtime.index.VectorSearch;
import ai.dwell.runtime.match.query.QueryItem;
import com.yahoo.tensor.Tensor;

import java.util.BitSet;

/**
 * Matches a nearestNeighbor item as proton does: the targetHits closest documents among the
 * candidates (the documents the rest of the query allows: the filter is applied during the search),
 * through the HNSW graph when allowed, exactly otherwise; see {@link NearestNeighborIndex}. On a mixed tensor<T>(m{},x[n])
 * attribute a document's distance is that of its closest vector, and the search is exact ({@link ai.dwell.runtime.index.MultiVectorIndex}).
 *
 * Settings, as in Vespa: targetHits and exploreAdditionalHits from the item (annotations, or
 * hnsw.exploreAdditionalHits), approximate:false, distanceThreshold; approximate-threshold from the
 * item, the query (ranking.matching.approximateThreshold) or the rank profile, default 0.05.
 */
final class NearestNeighborMatcher {

    static final double DEFAULT_APPROXIMATE_THRESHOLD = 0.05;
    private static final String APPROXIMATE_THRESHOLD = "vespa.matching.global_filter.lower_limit";

    private NearestNeighborMatcher() {}

    /** The matched local ids, and the term ranking reads closeness and distance from. */
    record Matched(BitSet hits, NearestNeighborTerm term) {}

    static Matched match(DocumentIndex index, QueryItem.NearestNeighbor item, BitSet candidates, BitSet active, QueryContext query) {
        return match(index, item, candidates, active, query, false);
    }

    /** The item's best targetHits among the candidates alone, searched exactly (as a streaming search does). */
    static Matched matchExactly(DocumentIndex index, QueryItem.NearestNeighbor item, BitSet candidates, QueryContext query) {
        return match(index, item, candidates, null, query, true);
    }

    private static Matched match(DocumentIndex index, QueryItem.NearestNeighbor item, BitSet candidates, BitSet active, QueryContext query,
                                 boolean exactlyWithin) {
        String field = item.field();
        Attribute attribute = index.attribute(field).orElseThrow(() ->
                new UnsupportedQueryException("nearestNeighbor: '" + field + "' is not an attribute of '" + index.name() + "'"));
        if ( ! (attribute instanceof TensorAttribute tensorAttribute) || tensorAttribute.vectorSearch().isEmpty())
            throw new UnsupportedQueryException("nearestNeighbor: attribute '" + field + "' is not a dense vector or multi-vector tensor attribute; " +
                                                "this content engine supports nearestNeighbor on tensor<T>(x[n]) and tensor<T>(m{},x[n]) attributes");
        VectorSearch vectors = tensorAttribute.vectorSearch().get();
        String tensorName = item.queryTensorName();
        // the container sends query(q) as the rank property "q"; other clients send "query(q)"
        Tensor tensor = query.tensor(tensorName, tensorAttribute.queryType())
                .or(() -> query.tensor("query(" + tensorName + ")", tensorAttribute.queryType()))
                .orElseThrow(() -> new UnsupportedQueryException("nearestNeighbor(" + field + ", " + tensorName + "): the query has no tensor query(" + tensorName + ")"));
        float[] queryVector = TensorAttribute.vector(tensor, vectors.dimensions());
        BitSet filter = ! exactlyWithin && candidates.cardinality() >= active.cardinality() ? null : candidates;
        double threshold = item.approximateThreshold()
                .orElseGet(() -> query.property(APPROXIMATE_THRESHOLD).map(Double::parseDouble).orElse(DEFAULT_APPROXIMATE_THRESHOLD));
        double distanceThreshold = item.distanceThreshold() > 0 ? item.distanceThreshold() : Double.POSITIVE_INFINITY;
        NearestNeighborIndex.Neighbors neighbors = vectors.search(queryVector, item.targetHits(), item.exploreAdditionalHits(),
                                                                  filter, item.allowApproximate() && ! exactlyWithin, threshold, distanceThreshold);
        BitSet hits = new BitSet();
        for (int lid : neighbors.lids()) hits.set(lid);
        return new Matched(hits, new NearestNeighborTerm(field, item.uniqueId(), tensorName, queryVector, vectors, hits));
    }

}
