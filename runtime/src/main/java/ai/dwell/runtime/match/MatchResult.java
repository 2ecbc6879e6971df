package ai.dwell.runtime.match;

import java.util.BitSet;
import java.util.List;

/** The local ids that matched a query, and the query's ranked terms. */
public record MatchResult(BitSet hits, List<QueryTerm> terms) {

    public MatchResult {
        terms = List.copyOf(terms);
    }

    public int hitCount() { return hits.cardinality(); }

}
