package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * firstPhase as a match feature: each hit's first-phase score, also where a second phase ranked it (the relevance
 * is then the second phase's), equal to the relevance the same first-phase expression gives as a profile's only phase.
 */
public class FirstPhaseFeatureTest {

    private static final long NOW = 1_763_000_000L;

    @TempDir Path tmp;

    @Test
    void firstPhaseAsAMatchFeatureIsEachHitsFirstPhaseScore() {
        Path copy = DwellPackage.copyWithProfiles(tmp, """

                    rank-profile neural_showing_first_phase inherits neural {
                        match-features: firstPhase
                    }
                }
                """);
        ContentClusterConfig cluster = ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        Map<ByteString, String> ids = new HashMap<>();
        try (ContentNode node = new ContentNode(cluster, 0)) {
            DocumentType type = indexing.documentTypes().getDocumentType("comment");
            for (int i = 0; i < 30; i++) {
                Document comment = new Document(type, new DocumentId("id:dwell:comment::c" + i));
                comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
                comment.setFieldValue("article_id", new StringFieldValue("a1"));
                comment.setFieldValue("text", new StringFieldValue("comment number " + i));
                comment.setFieldValue("created_at", new LongFieldValue(NOW - 977L * i * i));
                comment.setFieldValue("upvotes", new IntegerFieldValue((i * 7) % 13));
                comment.setFieldValue("downvotes", new IntegerFieldValue((i * 5) % 3));
                comment.setFieldValue("reply_count", new IntegerFieldValue(i % 4));
                comment.setFieldValue("text_length", new IntegerFieldValue(20 + i));
                node.put(indexing.process(comment));
                ids.put(ByteString.copyFrom(comment.getId().getGlobalId()), "c" + i);
            }
            Map<String, Double> firstPhaseAlone = new HashMap<>();
            for (SearchProtocol.Hit hit : search(node, "freshness").getHitsList()) // first phase: baseline, as neural's
                firstPhaseAlone.put(ids.get(hit.getGlobalId()), hit.getRelevance());

            SearchProtocol.SearchReply reply = search(node, "neural_showing_first_phase");
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            int firstPhase = reply.getMatchFeatureNamesList().indexOf("firstPhase");
            assertTrue(firstPhase >= 0, reply.getMatchFeatureNamesList().toString());
            assertEquals(30, reply.getHitsCount());
            for (SearchProtocol.Hit hit : reply.getHitsList()) {
                String id = ids.get(hit.getGlobalId());
                assertEquals(firstPhaseAlone.get(id), hit.getMatchFeatures(firstPhase).getNumber(), 1e-12, id);
                assertTrue(Math.abs(hit.getRelevance() - hit.getMatchFeatures(firstPhase).getNumber()) > 1e-9,
                           "the relevance is the second phase's, not the first's: " + id);
            }
        }
    }

    private static SearchProtocol.SearchReply search(ContentNode node, String profile) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(new WordItem("a1", "article_id"));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        return node.search(DwellPackage.request(query, 100));
    }

}
