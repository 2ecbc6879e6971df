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
            "vespa.matching.weakand.stop_word_drop_limit", value -> value >= 1.0,
            "vespa.hitcollector.rankscoredroplimit", value -> value == -Double.MAX_VALUE || Double.isInfinite(value) && value < 0,
            "vespa.hitcollector.secondphase.rankscoredroplimit", value -> value == -Double.MAX_VALUE || Double.isInfinite(value) && value < 0);

    private UnsupportedSettings() {}

    /** Throws {@link UnsupportedFeatureException} naming the first unsupported setting in the query or profile. */
    public static void check(RankProfile profile, QueryProperties query) {
        for (var entry : NO_OP_VALUES.entrySet()) {
            String name = entry.getKey();
            var value = query.string(name).or(() -> profile.property(name));
            if (value.isPresent() && ! entry.getValue().test(Double.parseDouble(value.get())))
                throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + name + " = " + value.get()
                                                      + " is not supported by this content engine");
        }
    }

}
