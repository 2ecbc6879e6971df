package ai.dwell.runtime.rank;

/**
 * A query's rank-score-drop-limits, as proton reads them: the first-phase one (vespa.hitcollector.rankscoredroplimit,
 * the schema's first-phase rank-score-drop-limit, or the request's ranking.rankScoreDropLimit) and the second-phase one
 * (vespa.hitcollector.secondphase.rankscoredroplimit, or ranking.secondPhase.rankScoreDropLimit). A hit whose score is
 * less than or equal to a limit is dropped; NaN stands for no limit, so that {@code !(score <= limit)} keeps every hit,
 * as proton's test is written.
 */
public record RankScoreDropLimits(double firstPhase, double secondPhase) {

    public static final String FIRST_PHASE = "vespa.hitcollector.rankscoredroplimit";
    public static final String SECOND_PHASE = "vespa.hitcollector.secondphase.rankscoredroplimit";

    public static final RankScoreDropLimits NONE = new RankScoreDropLimits(Double.NaN, Double.NaN);

    /** The limits of a query: its own values, else the profile's. */
    public static RankScoreDropLimits of(RankProfile profile, QueryProperties query) {
        return new RankScoreDropLimits(limit(FIRST_PHASE, profile, query), limit(SECOND_PHASE, profile, query));
    }

    private static double limit(String name, RankProfile profile, QueryProperties query) {
        return query.string(name).or(() -> profile.property(name)).map(RankScoreDropLimits::parse).orElse(Double.NaN);
    }

    private static double parse(String value) {
        try {
            return Double.parseDouble(value);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("A rank-score-drop-limit must be a number, not '" + value + "'");
        }
    }

    /** Whether the first-phase limit drops nothing. */
    public boolean keepsFirstPhase() { return Double.isNaN(firstPhase); }

    /** Whether the second-phase limit drops nothing. */
    public boolean keepsSecondPhase() { return Double.isNaN(secondPhase); }

}
