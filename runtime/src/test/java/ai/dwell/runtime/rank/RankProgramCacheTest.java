package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.MatchResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compiled programs are reused for the same query values, and those that folded a second of the clock only in that second. */
public class RankProgramCacheTest {

    private DocumentIndex index;
    private RankAssets assets;
    private final RankProgramCache cache = new RankProgramCache();

    @BeforeEach
    void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        index = DwellPackage.emptyCommentIndex(cluster);
        assets = new RankAssets(cluster.schema("comment"), cluster.packageDir());
    }

    @AfterEach
    void tearDown() { assets.close(); }

    @Test
    void aProgramOfTheClocksSecondIsDroppedWhenTheSecondIsOver() throws InterruptedException {
        RankProgram first = borrowAndReturn(QueryProperties.none()); // freshness reads now from the clock
        assertEquals(1, cache.signatures("comment", "freshness"));
        long second = System.currentTimeMillis() / 1000;
        RankProgram again = borrowAndReturn(QueryProperties.none());
        if (System.currentTimeMillis() / 1000 == second) assertSame(first, again, "reused within its second");
        while (System.currentTimeMillis() / 1000 <= second + 1) Thread.sleep(20);
        RankProgram later = borrowAndReturn(QueryProperties.none());
        assertFalse(later == first || later == again, "compiled again for the new second");
        assertEquals(1, cache.signatures("comment", "freshness"), "the past seconds' programs are gone, not kept until pushed out");
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
        try (RankProgramCache.Lease lease = cache.borrow(assets.profile("freshness").get(), assets, index,
                                                         () -> new MatchResult(new BitSet(), List.of()), query)) {
            return lease.program();
        }
    }

}
