package ai.dwell.searchers;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which documents and inputs RankingModelReader looks for, by its config (with the built package's rank profiles). */
public class RankingModelReaderIT {

    @Test
    void thePackagesModelDocumentsAndInput() {
        RankingModelReader reader = new RankingModelReader(new RankingModelConfig.Builder().build());
        assertEquals("id:dwell:rankingmodel::neural", reader.documentId("neural").toString());
        assertEquals("query(model_version)", reader.versionInput());
        var profiles = SearchChains.schemaInfo().schemas().get("comment").rankProfiles();
        assertTrue(reader.isModelProfile(profiles.get("neural")));
        assertFalse(reader.isModelProfile(profiles.get("freshness")));
    }

    @Test
    void theDocumentTypeAndVersionInputComeFromConfig() {
        RankingModelReader reader = new RankingModelReader(new RankingModelConfig.Builder().documentNamespace("news")
                                                                   .documentType("weights").versionInput("weights_version").build());
        assertEquals("id:news:weights::neural", reader.documentId("neural").toString());
        assertEquals("query(weights_version)", reader.versionInput());
        assertFalse(reader.isModelProfile(SearchChains.schemaInfo().schemas().get("comment").rankProfiles().get("neural")));
    }

}
