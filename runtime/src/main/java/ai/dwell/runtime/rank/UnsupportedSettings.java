package ai.dwell.runtime.rank;

import java.util.Map;
import java.util.function.DoublePredicate;

/**
 * Rank properties that change which documents proton returns, or how they are scored, and that this
 * engine does not implement: a profile or query that sets one to anything but its no-op value fails,
 * naming it, rather than getting results silently different from Vespa's.
 */
public final class UnsupportedSettings {

    /** Each property, with the values that leave results as this engine computes them. */
    private static final Map<String, DoublePredicate> NO_OP_VALUES = Map.of(
            "vespa.matching.weakand.stop_word_adjust_limit", value -> value >= 1.0,
            "vespa.matching.weakand.stop_word_drop_limit", value -> value >= 1.0);

    /**
     * Properties refused whatever their value, with the schema setting they come from: keep-rank-count (proton keeps
     * the first-phase score of only that many of the best matches, and returns no hit beyond them; this engine keeps
     * every match's, so deep pages and grouping would differ).
     */
    private static final Map<String, String> REFUSED = Map.of("vespa.hitcollector.arraysize", "keep-rank-count");

    private UnsupportedSettings() {}

    private static final java.util.regex.Pattern CONSTANT_VALUE = java.util.regex.Pattern.compile("value\\(\\s*-?[0-9.eE+-]+\\s*\\)");

    /** Whether the first phase is a constant: a number, or value(number), as the built-in 'unranked' profile's value(0). */
    private static boolean constantFirstPhase(RankProfile profile) {
        var firstPhase = profile.firstPhase();
        return firstPhase instanceof com.yahoo.searchlib.rankingexpression.rule.ConstantNode
               || CONSTANT_VALUE.matcher(firstPhase.toString()).matches();
    }

    /** Throws {@link UnsupportedFeatureException} naming the first unsupported setting in the query or profile. */
    public static void check(RankProfile profile, QueryProperties query) {
        for (var entry : REFUSED.entrySet()) {
            var value = query.string(entry.getKey()).or(() -> profile.property(entry.getKey()));
            // a constant first phase (the built-in 'unranked' profile, which sets 0) ranks nothing: keeping no scores changes nothing
            if (value.isPresent() && ! constantFirstPhase(profile))
                throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + entry.getValue() + " (" + entry.getKey() + " = "
                                                      + value.get() + ") is not supported by this content engine, which keeps the first-phase score of every match");
        }
        for (var entry : NO_OP_VALUES.entrySet()) {
            String name = entry.getKey();
            var value = query.string(name).or(() -> profile.property(name));
            if (value.isPresent() && ! entry.getValue().test(Double.parseDouble(value.get())))
                throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + name + " = " + value.get()
                                                      + " is not supported by this content engine");
        }
    }

}
