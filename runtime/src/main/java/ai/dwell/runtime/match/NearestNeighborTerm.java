package ai.dwell.runtime.match;

import ai.dwell.runtime.index.VectorSearch;

import java.util.BitSet;

/**
 * A nearestNeighbor item of a query as ranking sees it: the field it searched, its unique id (which
 * labels refer to), the query vector, and the vectors searched, so that closeness(field, f),
 * closeness(label, l), distance(field, f), distance(label, l) and closest(f) can be computed for any document; and
 * the documents it matched (its targetHits closest among those the rest of the query allowed), which alone get its raw score.
 */
public record NearestNeighborTerm(String field, int uniqueId, String queryTensorName, float[] query, VectorSearch index, BitSet hits) {

    /** The distance from the query to the document's (closest) vector, or Double.MAX_VALUE when it has none (as Vespa). */
    public double distance(int lid) { return index.distance(query, lid); }

    /** Vespa's closeness: 0 when the document has no vector. */
    public double closeness(int lid) { return index.closeness(query, lid); }

    /** The raw score proton's nearest neighbor iterator sets: the closeness of a document it matched, 0 for any other. */
    public double rawScore(int lid) { return hits.get(lid) ? closeness(lid) : 0; }

}
