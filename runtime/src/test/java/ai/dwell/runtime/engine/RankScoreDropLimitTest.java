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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * rank-score-drop-limit, first and second phase, from the profile and from the request, and the rescaling of the hits
 * the second phase did not rerank, checked against the ids and scores of Vespa's own system test for them
 * (search/second_phase_rank_score_drop_limit): seven documents with first-phase scores 1100, 1200, 1300, 1400, 500,
 * 900, 1000, the best two reranked to 14 and 13, the others rescaled to a hundredth of their first-phase score.
 */
public class RankScoreDropLimitTest {

    /** Document number, first-phase score, second-phase score (used only if reranked). */
    private static final int[][] DOCUMENTS = { {5, 1100, 0}, {10, 1200, 0}, {11, 1300, 14}, {12, 1400, 13}, {14, 500, 0}, {15, 900, 0}, {16, 1000, 0} };

    @TempDir Path tmp;
    private ContentNode node;
    private final Map<ByteString, Integer> ids = new HashMap<>();

    @BeforeEach
    void feed() {
        Path copy = DwellPackage.copyWithProfiles(tmp, """

                    rank-profile two_phases {
                        first-phase { expression: attribute(upvotes) }
                        second-phase {
                            rerank-count: 2
                            expression: attribute(downvotes)
                        }
                    }
                    rank-profile second_phase_drop_9 inherits two_phases {
                        second-phase {
                            rerank-count: 2
                            expression: attribute(downvotes)
                            rank-score-drop-limit: 9.0
                        }
                    }
                    rank-profile second_phase_drop_13 inherits two_phases {
                        second-phase {
                            rerank-count: 2
                            expression: attribute(downvotes)
                            rank-score-drop-limit: 13.0
                        }
                    }
                    rank-profile first_phase_drop_1000 {
                        first-phase {
                            expression: attribute(upvotes)
                            rank-score-drop-limit: 1000.0
                        }
                    }
                    rank-profile first_phase_nan {
                        first-phase { expression: if(attribute(upvotes) < 1000, 0/0, attribute(upvotes)) }
                    }
                }
                """);
        ContentClusterConfig cluster = ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        node = new ContentNode(cluster, 0);
        DocumentType type = indexing.documentTypes().getDocumentType("comment");
        for (int[] document : DOCUMENTS) {
            Document comment = new Document(type, new DocumentId("id:dwell:comment::" + document[0]));
            comment.setFieldValue("comment_id", new StringFieldValue(String.valueOf(document[0])));
            comment.setFieldValue("article_id", new StringFieldValue("a1"));
            comment.setFieldValue("text", new StringFieldValue("comment " + document[0]));
            comment.setFieldValue("created_at", new LongFieldValue(1_763_000_000L));
            comment.setFieldValue("upvotes", new IntegerFieldValue(document[1]));
            comment.setFieldValue("downvotes", new IntegerFieldValue(document[2]));
            node.put(indexing.process(comment));
            ids.put(ByteString.copyFrom(comment.getId().getGlobalId()), document[0]);
        }
    }

    @AfterEach
    void close() { node.close(); }

    @Test
    void hitsBelowTheWindowAreRescaledOntoTheSecondPhaseRange() {
        assertHits("two_phases", Map.of(), 7, List.of(List.of(11.0, 14.0), List.of(12.0, 13.0), List.of(10.0, 12.0), List.of(5.0, 11.0),
                                                      List.of(16.0, 10.0), List.of(15.0, 9.0), List.of(14.0, 5.0)));
    }

    @Test
    void theSecondPhaseLimitDropsRescaledHits() {
        assertHits("second_phase_drop_9", Map.of(), 5, List.of(List.of(11.0, 14.0), List.of(12.0, 13.0), List.of(10.0, 12.0), List.of(5.0, 11.0),
                                                               List.of(16.0, 10.0)));
    }

    @Test
    void theSecondPhaseLimitDropsRerankedHits() {
        assertHits("second_phase_drop_13", Map.of(), 1, List.of(List.of(11.0, 14.0)));
    }

    @Test
    void theSecondPhaseLimitComesFromTheRequest() {
        assertHits("two_phases", Map.of("vespa.hitcollector.secondphase.rankscoredroplimit", "13.0"), 1, List.of(List.of(11.0, 14.0)));
    }

    @Test
    void theFirstPhaseLimitDropsHitsAtOrBelowItAndTheyAreNotCounted() {
        assertHits("first_phase_drop_1000", Map.of(), 4, List.of(List.of(12.0, 1400.0), List.of(11.0, 1300.0), List.of(10.0, 1200.0), List.of(5.0, 1100.0)));
    }

    @Test
    void theFirstPhaseLimitComesFromTheRequest() {
        assertHits("first_phase_drop_1000", Map.of("vespa.hitcollector.rankscoredroplimit", "1200"), 2, List.of(List.of(12.0, 1400.0), List.of(11.0, 1300.0)));
    }

    @Test
    void aNotANumberFirstPhaseScoreIsMinusInfinityAndAnyLimitDropsIt() {
        SearchProtocol.SearchReply all = search("first_phase_nan", Map.of());
        assertEquals(7, all.getTotalHitCount());
        assertEquals(Double.NEGATIVE_INFINITY, all.getHits(6).getRelevance());
        assertHits("first_phase_nan", Map.of("vespa.hitcollector.rankscoredroplimit", "-1e300"), 5,
                   List.of(List.of(12.0, 1400.0), List.of(11.0, 1300.0), List.of(10.0, 1200.0), List.of(5.0, 1100.0), List.of(16.0, 1000.0)));
    }

    private void assertHits(String profile, Map<String, String> properties, int total, List<List<Double>> expected) {
        SearchProtocol.SearchReply reply = search(profile, properties);
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        List<List<Double>> hits = new ArrayList<>();
        for (SearchProtocol.Hit hit : reply.getHitsList()) hits.add(List.of((double) ids.get(hit.getGlobalId()), hit.getRelevance()));
        assertEquals(expected, hits, profile + " " + properties);
        assertEquals(total, reply.getTotalHitCount(), "totalCount of " + profile + " " + properties);
    }

    private SearchProtocol.SearchReply search(String profile, Map<String, String> properties) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(new WordItem("a1", "article_id"));
        properties.forEach((name, value) -> query.getRanking().getProperties().put(name, value));
        return node.search(DwellPackage.request(query, 100));
    }

}
