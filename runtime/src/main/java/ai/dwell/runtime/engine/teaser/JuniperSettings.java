package ai.dwell.runtime.engine.teaser;

import com.yahoo.vespa.config.search.summary.JuniperrcConfig;

/**
 * The juniper settings of one summary field, as proton's JuniperProperties sets them from juniperrc: the global
 * values, or the field's override (the config model gives each `bolding: on` field one, with a length of 64 MiB, so
 * that juniper shows it whole).
 */
record JuniperSettings(int length, boolean prefix, int stemMinLength, int stemMaxExtend,
                       int minLength, int maxMatches, int surroundMax, int winsize, double winsizeFallbackMultiplier, int maxMatchCandidates) {

    static final JuniperSettings DEFAULTS = new JuniperSettings(256, true, 5, 3, 128, 3, 128, 200, 10.0, 1000);

    static JuniperSettings of(JuniperrcConfig config, String summaryField) {
        for (JuniperrcConfig.Override o : config.override())
            if (o.fieldname().equals(summaryField))
                return new JuniperSettings(o.length(), o.prefix(), o.stem_min_length(), o.stem_max_extend(), o.min_length(), o.max_matches(),
                                           o.surround_max(), o.winsize(), o.winsize_fallback_multiplier(), o.max_match_candidates());
        return new JuniperSettings(config.length(), config.prefix(), config.stem_min_length(), config.stem_max_extend(), config.min_length(),
                                   config.max_matches(), config.surround_max(), config.winsize(), config.winsize_fallback_multiplier(),
                                   config.max_match_candidates());
    }

}
