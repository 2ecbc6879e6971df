package ai.dwell.runtime.match;

import ai.dwell.runtime.index.VectorSearch;

/**
 * A nearestNeighbor item of a query as ranking sees it: the field it searched, its unique id (which
 * labels refer to), the query vector, and the vectors searched, so that closeness(field, f),
 * closeness(label, l), distance(field, f), distance(label, l) and closest(f) can be computed for any document.
 */
public record NearestNeighborTerm(String field, int uniqueId, String queryTensorName, float[] query, VectorSearch index) {

    /** The distance from the query to the document's (closest) vector, or Double.MAX_VALUE when it has none (as Vespa). */
    public double distance(int lid) { return index.distance(query, lid); }

    /** Vespa's closeness: 0 when the document has no vector. */
    public double closeness(int lid) { return index.closeness(query, lid); }

}
