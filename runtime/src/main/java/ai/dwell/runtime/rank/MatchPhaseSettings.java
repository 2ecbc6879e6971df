package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.NumericAttribute;
import ai.dwell.runtime.match.MatchPhaseLimiter;

import java.util.Optional;

/**
 * Reads a query's match-phase settings: the request's rank properties (ranking.matchPhase.* in the
 * container), else the profile's vespa.matchphase.degradation.{attribute, ascendingorder, maxhits,
 * maxfiltercoverage}. Sample percentage and post-filter multiplier only tune how proton estimates and
 * filters, not which documents are ranked here, so they are read by no one. Diversity
 * (vespa.matchphase.diversity.attribute) is not implemented and fails naming it, as does a
 * match-phase attribute that is missing, not a number or not fast-search.
 */
public final class MatchPhaseSettings {

    private static final String PREFIX = "vespa.matchphase.degradation.";

    private MatchPhaseSettings() {}

    /** The limiter for this query, or empty if match-phase is off (no attribute or max-hits 0). */
    public static Optional<MatchPhaseLimiter> limiter(RankProfile profile, QueryProperties query, DocumentIndex index) {
        Optional<String> diversity = property("vespa.matchphase.diversity.attribute", profile, query).filter(s -> ! s.isEmpty());
        if (diversity.isPresent())
            throw unsupported(profile, "match-phase diversity (attribute '" + diversity.get() + "') is not supported by this content engine");
        String attributeName = property(PREFIX + "attribute", profile, query).orElse("");
        long maxHits = property(PREFIX + "maxhits", profile, query).map(Long::parseLong).orElse(0L);
        if (attributeName.isEmpty() || maxHits <= 0) return Optional.empty();
        Attribute attribute = index.attribute(attributeName).orElseThrow(() ->
                unsupported(profile, "match-phase attribute '" + attributeName + "' is not an attribute of '" + index.name() + "'"));
        if ( ! (attribute instanceof NumericAttribute numeric) || ! numeric.isFastSearch())
            throw unsupported(profile, "match-phase attribute '" + attributeName + "' must be a single-value numeric fast-search attribute");
        boolean ascending = property(PREFIX + "ascendingorder", profile, query).map(Boolean::parseBoolean).orElse(false);
        double maxFilterCoverage = property(PREFIX + "maxfiltercoverage", profile, query).map(Double::parseDouble).orElse(0.2);
        return Optional.of(new MatchPhaseLimiter(numeric, ! ascending, maxHits, maxFilterCoverage));
    }

    private static Optional<String> property(String name, RankProfile profile, QueryProperties query) {
        return query.string(name).or(() -> profile.property(name));
    }

    private static UnsupportedFeatureException unsupported(RankProfile profile, String message) {
        return new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + message);
    }

}
