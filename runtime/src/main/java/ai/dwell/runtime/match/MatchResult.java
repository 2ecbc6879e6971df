package ai.dwell.runtime.match;

import java.util.BitSet;
import java.util.List;

/** The local ids that matched a query, the query's ranked terms, and its nearestNeighbor items. */
public record MatchResult(BitSet hits, List<QueryTerm> terms, List<NearestNeighborTerm> nearestNeighbors) {

    public MatchResult {
        terms = List.copyOf(terms);
        nearestNeighbors = List.copyOf(nearestNeighbors);
    }

    public MatchResult(BitSet hits, List<QueryTerm> terms) { this(hits, terms, List.of()); }

    public int hitCount() { return hits.cardinality(); }

}
