package ai.dwell.searchers;

import ai.dwell.application.DwellApplication;
import com.yahoo.config.ConfigInstance;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The searchers' configs as the built package (services.xml) gives them: the schema facts it sets
 * are the defaults of the config definitions, so a searcher built with its default config, as the
 * unit tests build them, is the searcher the package runs.
 */
public class SearcherConfigsIT {

    private static final String CHAIN = SearchChains.CONTAINER + "/searchchains/chain/default/component/ai.dwell.searchers.";

    @Test
    void thePackageSetsTheDefaultSchemaFacts() {
        assertEquals(new ArticleViewConfig.Builder().build(), config(ArticleViewConfig.class, "ArticleSearcher"));
        assertEquals(new SimilarCommentsConfig.Builder().build(), config(SimilarCommentsConfig.class, "SimilarCommentsSearcher"));
        assertEquals(new DuplicateCollapseConfig.Builder().build(), config(DuplicateCollapseConfig.class, "DuplicateCollapseSearcher"));
        assertEquals(new RankingModelConfig.Builder().build(), config(RankingModelConfig.class, "RankingModelSearcher"));
        assertEquals(new ExplorationConfig.Builder().build(), config(ExplorationConfig.class, "ExplorationSearcher"));
    }

    @Test
    void theSchemaFactsNameWhatThePackageHas() {
        var schema = SearchChains.schemaInfo().schemas().get(config(ArticleViewConfig.class, "ArticleSearcher").schema());
        SimilarCommentsConfig similar = config(SimilarCommentsConfig.class, "SimilarCommentsSearcher");
        assertEquals(similar.schema(), schema.name());
        assertEquals(similar.queryTensorType(),
                     schema.rankProfiles().get(similar.profile()).inputs().get("query(" + similar.queryTensor() + ")").tensorType().toString());
        var article = config(ArticleViewConfig.class, "ArticleSearcher");
        assertEquals(true, schema.rankProfiles().containsKey(article.defaultProfile()));
        assertEquals(true, schema.documentSummaries().containsKey(article.defaultSummary()));
        assertEquals(true, schema.documentSummaries().containsKey(similar.embeddingSummary()));
        var ids = schema.documentSummaries().get(config(ExplorationConfig.class, "ExplorationSearcher").idSummary());
        assertEquals(java.util.Set.of("documentid", "rankfeatures", "summaryfeatures"), ids.fields().keySet(),
                     "the id class gives the document id alone, besides the two fields Vespa adds to every class");
    }

    private static <T extends ConfigInstance> T config(Class<T> type, String searcher) {
        return DwellApplication.config(type, CHAIN + searcher);
    }

}
