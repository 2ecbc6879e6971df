package ai.dwell.runtime.index;

import com.yahoo.vespa.config.search.AttributesConfig;
import com.yahoo.vespa.config.search.ImportedFieldsConfig;
import com.yahoo.vespa.config.search.IndexschemaConfig;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.config.search.SummaryConfig;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.config.search.core.RankingConstantsConfig;
import com.yahoo.vespa.config.search.core.RankingExpressionsConfig;
import com.yahoo.vespa.config.search.summary.JuniperrcConfig;

/**
 * The configs proton uses for one schema (document type) of a content cluster, as the config model
 * derives them (juniperrc: the dynamic summary settings, which bolding fields override) for config id "&lt;cluster&gt;/search/cluster.&lt;cluster&gt;/&lt;schema&gt;".
 * File references in them are paths relative to the application package directory.
 */
public record SchemaConfigs(String name,
                            RankProfilesConfig rankProfiles,
                            AttributesConfig attributes,
                            IndexschemaConfig indexSchema,
                            SummaryConfig summary,
                            ImportedFieldsConfig importedFields,
                            RankingConstantsConfig rankingConstants,
                            OnnxModelsConfig onnxModels,
                            RankingExpressionsConfig rankingExpressions,
                            JuniperrcConfig juniperrc) {

    public SchemaConfigs(String name, RankProfilesConfig rankProfiles, AttributesConfig attributes, IndexschemaConfig indexSchema,
                         SummaryConfig summary, ImportedFieldsConfig importedFields, RankingConstantsConfig rankingConstants,
                         OnnxModelsConfig onnxModels, RankingExpressionsConfig rankingExpressions) {
        this(name, rankProfiles, attributes, indexSchema, summary, importedFields, rankingConstants, onnxModels, rankingExpressions,
             new JuniperrcConfig.Builder().build());
    }

}
