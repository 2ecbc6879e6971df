package ai.dwell.runtime.index;

import java.util.BitSet;

/**
 * What a nearestNeighbor item searches and ranking reads distances from: the vectors of one tensor attribute, one per
 * document ({@link NearestNeighborIndex}, tensor&lt;T&gt;(x[n])) or several ({@link MultiVectorIndex}, tensor&lt;T&gt;(m{},x[n]),
 * where a document's distance is that of its closest vector).
 */
public sealed interface VectorSearch permits NearestNeighborIndex, MultiVectorIndex {

    /** The number of cells of each vector (and of the query vector). */
    int dimensions();

    DistanceMetric metric();

    /** The distance from the query to the document's closest vector, or Double.MAX_VALUE when it has none (as Vespa). */
    double distance(float[] query, int lid);

    /** Vespa's closeness of the document to the query: that of its closest vector, 0 when it has none. */
    default double closeness(float[] query, int lid) {
        double distance = distance(query, lid);
        return distance == Double.MAX_VALUE ? 0 : metric().closeness(distance);
    }

    /**
     * The targetHits documents closest to the query among the local ids in filter (all when null), closest first.
     *
     * @param exploreAdditionalHits how many more candidates a graph search keeps while it explores
     * @param approximate           false to always search exactly
     * @param approximateThreshold  below this share of the documents passing the filter, search exactly
     * @param distanceThreshold     hits farther than this are dropped
     */
    NearestNeighborIndex.Neighbors search(float[] query, int targetHits, int exploreAdditionalHits, BitSet filter,
                                          boolean approximate, double approximateThreshold, double distanceThreshold);

}
