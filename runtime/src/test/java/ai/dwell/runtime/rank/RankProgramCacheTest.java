package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.MatchResult;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiled programs are reused for the same query values: in every second (now is set per query, not folded), and with
 * what the documents hold when the query runs (nothing remembered from an earlier query).
 */
public class RankProgramCacheTest {

    private static final long NOW = 1_800_000_000L;

    private DocumentIndex index;
    private DocumentTypeManager types;
    private RankAssets assets;
    private final RankProgramCache cache = new RankProgramCache();

    @BeforeEach
    void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        index = DwellPackage.emptyCommentIndex(cluster);
        types = new DocumentTypeManager(cluster.documentManager());
        assets = new RankAssets(cluster.schema("comment"), cluster.packageDir());
    }

    @AfterEach
    void tearDown() { assets.close(); }

    @Test
    void oneProgramServesEverySecondWithThatSecondsNow() {
        int lid = put("c1", NOW - 7200, 5);
        RankProgram first, later;
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW)) {
            first = lease.program();
            assertEquals(2.0, feature(first, "age_hours", lid), "now is the second the query started");
        }
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW + 3600)) {
            later = lease.program();
            assertTrue(lease.cached(), "not compiled again for a new second");
            assertEquals(3.0, feature(later, "age_hours", lid));
            assertEquals(firstPhase(compiledAt(NOW + 3600), lid), firstPhase(later, lid), "as a program compiled with that now scores");
        }
        assertSame(first, later);
        assertEquals(1, cache.compiles());
        assertEquals(1, cache.signatures("comment", "freshness"));
    }

    /** ranking.listFeatures' rank features may read the query's terms: their program is compiled for the request and not kept. */
    @Test
    void aProgramForListedFeaturesIsNeitherTakenFromTheCacheNorKeptInIt() {
        RankProgram cached;
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW)) {
            cached = lease.program();
        }
        try (RankProgramCache.Lease lease = cache.compile(assets.profile("freshness").get(), assets, index,
                                                          () -> new MatchResult(new BitSet(), List.of()), QueryProperties.none(), NOW)) {
            assertFalse(lease.cached());
            assertNotSame(cached, lease.program());
        }
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW)) {
            assertSame(cached, lease.program(), "the cached program is still the one idle");
        }
        assertEquals(2, cache.compiles());
        assertEquals(1, cache.signatures("comment", "freshness"));
    }

    @Test
    void aReusedProgramReadsWhatADocumentHoldsNow() {
        int lid = put("c1", NOW - 7200, 5);
        RankProgram program;
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW)) {
            program = lease.program();
            assertEquals(feature(compiledAt(NOW), "baseline", lid), feature(program, "baseline", lid), 0);
        }
        assertEquals(lid, put("c1", NOW - 7200, 500), "the same document, updated in place");
        try (RankProgramCache.Lease lease = borrow("freshness", QueryProperties.none(), NOW)) {
            assertSame(program, lease.program());
            assertEquals(feature(compiledAt(NOW), "baseline", lid), feature(program, "baseline", lid), 0,
                         "not the value the program remembered from the last query");
        }
    }

    @Test
    void aProgramWithNowFromTheQueryIsKeptAcrossSeconds() throws InterruptedException {
        QueryProperties query = new QueryProperties(Map.of("vespa.now", "1800000000"), Map.of());
        RankProgram first = borrowAndReturn(query);
        long second = System.currentTimeMillis() / 1000;
        while (System.currentTimeMillis() / 1000 <= second) Thread.sleep(20);
        assertSame(first, borrowAndReturn(query));
        assertTrue(cache.hits() >= 1);
        assertEquals(1, cache.signatures("comment", "freshness"));
    }

    private RankProgram borrowAndReturn(QueryProperties query) {
        try (RankProgramCache.Lease lease = borrow("freshness", query, System.currentTimeMillis() / 1000)) {
            return lease.program();
        }
    }

    private RankProgramCache.Lease borrow(String profile, QueryProperties query, long second) {
        return cache.borrow(assets.profile(profile).get(), assets, index, () -> new MatchResult(new BitSet(), List.of()), query, second);
    }

    private RankProgram compiledAt(long second) {
        return new RankProgram(assets.profile("freshness").get(), assets, index, List.of(),
                               new QueryProperties(Map.of("vespa.now", String.valueOf(second)), Map.of()));
    }

    private int put(String id, long createdAt, int upvotes) {
        Document comment = new Document(types.getDocumentType("comment"), new DocumentId("id:dwell:comment::" + id));
        comment.setFieldValue("created_at", new LongFieldValue(createdAt));
        comment.setFieldValue("upvotes", new IntegerFieldValue(upvotes));
        return index.put(comment);
    }

    /** A match feature of one document, computed by itself (not as a block), as a summary computes it. */
    private static double feature(RankProgram program, String name, int lid) {
        return program.matchFeatures().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow().number(lid);
    }

    private static double firstPhase(RankProgram program, int lid) {
        double[] score = new double[1];
        program.firstPhase(new int[] { lid }, 1, score);
        return score[0];
    }

}
