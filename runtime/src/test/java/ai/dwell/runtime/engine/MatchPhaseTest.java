package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Match-phase limiting on created_at (dwell's profiles: descending, max-hits 50000 unless the query
 * says otherwise), on one node with 2000 comments in two articles whose comments alternate in time.
 */
public class MatchPhaseTest {

    private static final long NOW = 1_800_000_000L;

    private static ContentNode node;
    private static final Map<ByteString, Long> createdAt = new HashMap<>();

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        node = new ContentNode(cluster, 0);
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("comment");
        for (int i = 0; i < 2000; i++) {
            Document comment = new Document(type, new DocumentId("id:dwell:comment::m" + i));
            comment.setFieldValue("article_id", new StringFieldValue(i % 2 == 0 ? "big" : "other"));
            comment.setFieldValue("created_at", new LongFieldValue(NOW - 60L * i));
            comment.setFieldValue("upvotes", new IntegerFieldValue(i % 5));
            node.put(comment);
            createdAt.put(ByteString.copyFrom(comment.getId().getGlobalId()), NOW - 60L * i);
        }
    }

    @AfterAll
    static void tearDown() { node.close(); }

    @Test
    void onlyTheNewestMatchesAreRankedWhenMaxHitsIsExceeded() {
        // 1000 of 2001 local ids match: hit rate ~0.5, so the 200 newest documents of the corpus
        // (100 of them in "big") are ranked; 200 < 20% of the corpus, so proton would limit too.
        SearchProtocol.SearchReply reply = search("100", 1000);
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        assertTrue(reply.getDegradedByMatchPhase());
        assertEquals(100, reply.getTotalHitCount());
        assertEquals(100, reply.getHitsCount());
        long oldestAllowed = NOW - 60L * 198; // the 100 newest comments of "big" are m0, m2, ... m198
        for (SearchProtocol.Hit hit : reply.getHitsList())
            assertTrue(createdAt.get(hit.getGlobalId()) >= oldestAllowed, "only the newest are ranked");
        assertEquals(2000, reply.getActiveDocs());
        assertEquals(201 * 2000 / 2001, reply.getCoverageDocs()); // (covered space + 1) · active / docid limit, as proton
    }

    @Test
    void aRangeOnTheAttributeIsWhereTheBestAreTaken() {
        // As proton's RangeQueryLocator: with created_at < the 1000th newest, the 200 newest of that
        // range (m1000 ... m1199, 100 of them in "big") are ranked, not the newest of the corpus.
        Query query = query("50");
        AndItem and = new AndItem();
        and.addItem(new WordItem("big", "article_id"));
        and.addItem(new IntItem("<" + (NOW - 60L * 999), "created_at"));
        query.getModel().getQueryTree().setRoot(and);
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 1000));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        assertTrue(reply.getDegradedByMatchPhase());
        assertEquals(100, reply.getTotalHitCount());
        for (SearchProtocol.Hit hit : reply.getHitsList()) {
            long created = createdAt.get(hit.getGlobalId());
            assertTrue(created <= NOW - 60L * 1000 && created >= NOW - 60L * 1198, "the newest in the range: " + (NOW - created) / 60);
        }
    }

    @Test
    void noLimitWhenMaxHitsWouldCoverTooMuchOfTheCorpus() {
        // max-hits 300 at hit rate ~0.5 wants 600 documents: more than 20% of the corpus, so proton does not limit
        SearchProtocol.SearchReply reply = search("300", 10);
        assertFalse(reply.getDegradedByMatchPhase());
        assertEquals(1000, reply.getTotalHitCount());
        assertEquals(reply.getActiveDocs(), reply.getCoverageDocs());
    }

    @Test
    void diversityFailsNamingIt() {
        Query query = query("100");
        query.getRanking().getProperties().put("vespa.matchphase.diversity.attribute", "author_id");
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 10));
        assertEquals(1, reply.getErrorsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("diversity"), reply.getErrors(0).getMessage());
    }

    private static SearchProtocol.SearchReply search(String maxHits, int hits) {
        return node.search(DwellPackage.request(query(maxHits), hits));
    }

    private static Query query(String maxHits) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(new WordItem("big", "article_id"));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        query.getRanking().getProperties().put("vespa.matchphase.degradation.maxhits", maxHits);
        return query;
    }

}
