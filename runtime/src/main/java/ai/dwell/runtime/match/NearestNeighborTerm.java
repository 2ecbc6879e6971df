package ai.dwell.runtime.match;

import ai.dwell.runtime.index.NearestNeighborIndex;

/**
 * A nearestNeighbor item of a query as ranking sees it: the field it searched, its unique id (which
 * labels refer to), the query vector, and the vector index, so that closeness(field, f),
 * closeness(label, l), distance(field, f) and distance(label, l) can be computed for any document.
 */
public record NearestNeighborTerm(String field, int uniqueId, String queryTensorName, float[] query, NearestNeighborIndex index) {

    /** The distance from the query to the document's vector, or Double.MAX_VALUE when it has none (as Vespa). */
    public double distance(int lid) {
        float[] vector = index.vector(lid);
        return vector == null ? Double.MAX_VALUE : index.metric().distance(query, vector);
    }

    /** Vespa's closeness: 0 when the document has no vector. */
    public double closeness(int lid) {
        float[] vector = index.vector(lid);
        return vector == null ? 0 : index.metric().closeness(index.metric().distance(query, vector));
    }

}
