package ai.dwell.runtime.match;

import ai.dwell.runtime.index.NumericAttribute;
import ai.dwell.runtime.index.NumericRange;
import ai.dwell.runtime.match.query.QueryItem;

import java.util.BitSet;

/**
 * Match-phase limiting (rank profile match-phase, properties vespa.matchphase.degradation.*) as
 * proton's MatchPhaseLimiter does it on one content node: when a query matches so many documents
 * that max-hits of them are expected among fewer than max-filter-coverage of the corpus, only the
 * matches among the documents with the best values of the attribute are kept (ranked), namely the
 * first max(128, max-hits / hit rate) documents of the corpus in attribute order (highest first
 * unless ascending), whole values at a time. The hit rate is the exact share of the corpus that
 * matched (proton estimates it from a sample). Queries with a hit rate under 0.2% are not limited.
 * Diversity (vespa.matchphase.diversity.*) is not implemented; its settings are refused where they are read.
 */
public final class MatchPhaseLimiter {

    /** proton's MIN_HIT_RATE_LIMIT: below this limiting is often more expensive than matching all. */
    private static final double MIN_HIT_RATE = 0.002;

    /** The matches to rank, whether they were limited, and the document id space they cover. */
    public record Limited(BitSet hits, boolean degraded, long coveredDocIdSpace) {}

    private final NumericAttribute attribute;
    private final boolean descending;
    private final long maxHits;
    private final double maxFilterCoverage;

    public MatchPhaseLimiter(NumericAttribute attribute, boolean descending, long maxHits, double maxFilterCoverage) {
        if ( ! attribute.isFastSearch())
            throw new IllegalArgumentException("match-phase attribute '" + attribute.name() + "' must be fast-search");
        this.attribute = attribute;
        this.descending = descending;
        this.maxHits = maxHits;
        this.maxFilterCoverage = maxFilterCoverage;
    }

    /**
     * Limits the matches of a query over a document id space of docIdLimit local ids (id 0 included, as
     * proton counts it); the result's hits may be the given set, modified. Where the query restricts the
     * attribute to a range ({@link RangeLocator}), the best documents are taken within that range.
     */
    public Limited limit(BitSet matches, int docIdLimit, QueryItem query) {
        long matched = matches.cardinality();
        if ( ! limits(matched, docIdLimit)) return new Limited(matches, false, docIdLimit);
        long wanted = wanted(matched, docIdLimit);
        BitSet best = new BitSet(docIdLimit);
        NumericRange range = RangeLocator.firstRange(query, attribute.name())
                                         .orElse(new NumericRange(Double.NEGATIVE_INFINITY, true, Double.POSITIVE_INFINITY, true));
        attribute.addFirstInValueOrder(wanted, descending, range, best);
        matches.and(best);
        return new Limited(matches, true, best.cardinality());
    }

    /** Whether a query with this many matches over a document id space of docIdLimit is limited (else {@link #limit} keeps them all). */
    public boolean limits(long matched, int docIdLimit) {
        double hitRate = docIdLimit == 0 ? 0 : (double) matched / docIdLimit;
        long maxFilterDocs = (long) (docIdLimit * maxFilterCoverage);
        return Math.min(docIdLimit, maxFilterDocs) > wanted(matched, docIdLimit) && hitRate >= MIN_HIT_RATE;
    }

    /** The documents to take in attribute order: max-hits over the hit rate, at least 128. */
    private long wanted(long matched, int docIdLimit) {
        double hitRate = docIdLimit == 0 ? 0 : (double) matched / docIdLimit;
        return hitRate == 0 ? Integer.MAX_VALUE : (long) Math.min(Integer.MAX_VALUE, Math.max(128.0, maxHits / hitRate));
    }

}
