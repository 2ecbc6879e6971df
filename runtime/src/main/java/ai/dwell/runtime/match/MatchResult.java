package ai.dwell.runtime.match;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The local ids that matched a query, in increasing order, with the query's ranked terms and its nearestNeighbor
 * items. The ids are kept as an array, as ranking reads them; a bit set of them is made only when asked for.
 */
public final class MatchResult {

    private final int[] lids;
    private final int count;
    private final List<QueryTerm> terms;
    private final List<NearestNeighborTerm> nearestNeighbors;
    private final List<RankTerm> rankTerms;
    private final List<PredicateTerm> predicates;
    private BitSet hits; // made when asked for

    /** The first count ids of lids (increasing, not copied), the terms, and the predicate items with their subqueries. */
    public MatchResult(int[] lids, int count, List<QueryTerm> terms, List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms,
                       List<PredicateTerm> predicates) {
        if (count > lids.length) throw new IllegalArgumentException(count + " ids of an array of " + lids.length);
        this.lids = lids;
        this.count = count;
        this.terms = List.copyOf(terms);
        this.nearestNeighbors = List.copyOf(nearestNeighbors);
        this.rankTerms = List.copyOf(rankTerms);
        this.predicates = List.copyOf(predicates);
    }

    public MatchResult(BitSet hits, List<QueryTerm> terms, List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms,
                       List<PredicateTerm> predicates) {
        this(hits.stream().toArray(), hits.cardinality(), terms, nearestNeighbors, rankTerms, predicates);
    }

    /**
     * A match with these terms only: no nearestNeighbor, rank or predicate terms. Every other constructor takes all of
     * them, so that a matcher cannot leave one out by accident (a merge once dropped the predicate terms of the summary
     * path's match, and subqueries features came out 0).
     */
    public MatchResult(BitSet hits, List<QueryTerm> terms) { this(hits, terms, List.of(), List.of(), List.of()); }

    /** The matched ids in increasing order: the first {@link #hitCount} of this array (do not change it). */
    public int[] lids() { return lids; }

    public int hitCount() { return count; }

    /** The matched ids as a bit set (do not change it). */
    public BitSet hits() {
        if (hits == null) {
            hits = new BitSet(count == 0 ? 0 : lids[count - 1] + 1);
            for (int i = 0; i < count; i++) hits.set(lids[i]);
        }
        return hits;
    }

    public List<QueryTerm> terms() { return terms; }

    public List<NearestNeighborTerm> nearestNeighbors() { return nearestNeighbors; }

    /** The query's ranked terms as proton's term data, in its order: what native rank features read. */
    public List<RankTerm> rankTerms() { return rankTerms; }

    /** The query's predicate items, with the subqueries each document matched them for. */
    public List<PredicateTerm> predicates() { return predicates; }

    @Override
    public String toString() { return "MatchResult(" + Arrays.toString(Arrays.copyOf(lids, Math.min(count, 20))) + (count > 20 ? "..." : "") + ", " + terms + ")"; }

}
