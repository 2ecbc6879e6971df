package ai.dwell.runtime.engine.teaser;

import com.yahoo.vespa.config.search.summary.JuniperrcConfig;

/**
 * The juniper settings of one summary field that this engine uses, as proton's JuniperProperties sets them from
 * juniperrc: the global values, or the field's override (the config model gives each `bolding: on` field one, with
 * a length of 64 MiB, so that juniper shows it whole). The other settings (max_matches, min_length, surround_max,
 * winsize) steer only the snippet selection, which is not ported.
 */
record JuniperSettings(int length, boolean prefix, int stemMinLength, int stemMaxExtend) {

    static final JuniperSettings DEFAULTS = new JuniperSettings(256, true, 5, 3);

    static JuniperSettings of(JuniperrcConfig config, String summaryField) {
        for (JuniperrcConfig.Override override : config.override())
            if (override.fieldname().equals(summaryField))
                return new JuniperSettings(override.length(), override.prefix(), override.stem_min_length(), override.stem_max_extend());
        return new JuniperSettings(config.length(), config.prefix(), config.stem_min_length(), config.stem_max_extend());
    }

}
