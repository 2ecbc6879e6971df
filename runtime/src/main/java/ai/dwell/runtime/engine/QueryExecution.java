package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.group.GroupingBlob;
import ai.dwell.runtime.engine.group.GroupingRunner;
import ai.dwell.runtime.engine.query.SearchQuery;
import ai.dwell.runtime.engine.sort.RankedHit;
import ai.dwell.runtime.engine.sort.SortedHits;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.MatchPhaseLimiter;
import ai.dwell.runtime.match.MatchResult;
import ai.dwell.runtime.match.QueryMatcher;
import ai.dwell.runtime.rank.FeatureBlock;
import ai.dwell.runtime.rank.MatchPhaseSettings;
import ai.dwell.runtime.rank.RankProfile;
import ai.dwell.runtime.rank.RankProgram;
import ai.dwell.runtime.rank.RankProgramCache;
import ai.dwell.runtime.rank.RankScoreDropLimits;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import ai.dwell.runtime.rank.UnsupportedSettings;

import com.yahoo.document.GlobalId;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One search on one content node, run as a pipeline over each document type it covers:
 * match → limit (match phase) → rank → collect (group, sort or keep the best), then the result.
 * Ranking borrows compiled programs, which it holds until closed: the result's match features read them.
 * Call under the node's read lock.
 */
final class QueryExecution implements AutoCloseable {

    private final SearchQuery query;
    private final NodeIndexes node;
    private final RankProgramCache programCache;
    private final SearchThreads threads;
    private final List<DocumentIndex> searched;
    private final HitCollector collector;
    private final List<RankProgramCache.Lease> leases = new ArrayList<>();
    private final Map<String, RankProgram> programs = new LinkedHashMap<>();
    private final long active;
    private final long start;
    private final long clockSecond; // now, for every rank program of the query: the second it started
    private final long deadline;
    private final SearchTrace trace; // null: not traced
    private long total = 0;
    private long covered;
    private boolean degraded = false;
    private boolean softTimeout = false;

    private final NodeMetrics metrics; // null: not counted
    private final Collection<GlobalId> streamed; // a streaming search's documents (its group or selection); null: an indexed search

    QueryExecution(SearchQuery query, NodeIndexes node, RankProgramCache programCache, SearchThreads threads) {
        this(query, node, programCache, threads, null);
    }

    QueryExecution(SearchQuery query, NodeIndexes node, RankProgramCache programCache, SearchThreads threads, NodeMetrics metrics) {
        this(query, node, programCache, threads, metrics, null);
    }

    /** A streaming search when streamed is not null: over those documents only, as if the node held no others. */
    QueryExecution(SearchQuery query, NodeIndexes node, RankProgramCache programCache, SearchThreads threads, NodeMetrics metrics,
                   Collection<GlobalId> streamed) {
        this.streamed = streamed;
        this.metrics = metrics;
        this.query = query;
        this.node = node;
        this.programCache = programCache;
        this.threads = threads;
        SortedHits sorted = query.sorts() ? new SortedHits(query.sorting()) : null;
        this.searched = node.searched(query.documentType(), query.rankProfile());
        this.collector = new HitCollector(query.offset(), query.hits(), sorted, grouping());
        this.active = node.activeDocuments(query.documentType());
        this.covered = active;
        this.start = System.nanoTime();
        this.clockSecond = System.currentTimeMillis() / 1000;
        this.deadline = query.timeoutMillis() > 0 ? start + query.timeoutMillis() * 1_000_000L : Long.MAX_VALUE;
        this.trace = query.traceLevel() > 0 ? new SearchTrace(node.distributionKey(), start) : null;
    }

    SearchResult run() {
        for (DocumentIndex index : searched) {
            if (pastDeadline(index)) continue;
            RankProfile profile = node.profile(index, query.rankProfile()).get();
            long indexStart = System.nanoTime();
            MatchResult match = match(index, profile);
            long matchNanos = System.nanoTime() - indexStart;
            MatchResult limited = limit(index, profile, match);
            Ranker.Ranked ranked = rank(index, profile, match, limited);
            collector.add(index, ranked);
            if (metrics != null)
                metrics.rankProfile(index.name(), profile.name()).add(System.nanoTime() - indexStart, matchNanos + ranked.firstPhaseNanos(),
                                                                      ranked.secondPhaseNanos(), ranked.matched(), ranked.reranked());
        }
        return result();
    }

    private GroupingRunner grouping() {
        if ( ! query.groups()) return null;
        if (searched.size() != 1)
            throw new UnsupportedFeatureException("Grouping over several document types (" + searched.stream().map(DocumentIndex::name).toList() + ") is not supported by this content engine");
        return new GroupingRunner(GroupingBlob.read(query.groupingBlob()), searched.get(0), node.distributionKey());
    }

    /** proton's soft timeout: an index not reached in time is skipped, and not covered. */
    private boolean pastDeadline(DocumentIndex index) {
        if (System.nanoTime() <= deadline) return false;
        softTimeout = true;
        covered -= index.searchedCount();
        if (trace != null) trace.event("soft timeout: skipping " + index.name());
        return true;
    }

    private MatchResult match(DocumentIndex index, RankProfile profile) {
        long matchStart = System.nanoTime();
        MatchResult match = streamed == null ? QueryMatcher.match(index, query.root(), NearestNeighborContext.of(query.properties(), profile))
                                             : QueryMatcher.matchStreaming(index, query.root(), NearestNeighborContext.of(query.properties(), profile),
                                                                           localIds(index, streamed));
        if (trace != null) trace.phase(index.name(), "match", matchStart, match.hitCount() + " hits");
        return match;
    }

    /** The local ids of those of the documents the index holds. */
    static BitSet localIds(DocumentIndex index, Collection<GlobalId> documents) {
        BitSet lids = new BitSet(index.lidLimit());
        for (GlobalId gid : documents) {
            int lid = index.localId(gid);
            if (lid >= 0) lids.set(lid);
        }
        return lids;
    }

    /** The matches to rank: all, or the best by the match-phase attribute when the profile limits them. */
    private MatchResult limit(DocumentIndex index, RankProfile profile, MatchResult match) {
        UnsupportedSettings.check(profile, query.properties());
        Optional<MatchPhaseLimiter> limiter = MatchPhaseSettings.limiter(profile, query.properties(), index);
        if (limiter.isPresent() && limiter.get().limits(match.hitCount(), index.lidLimit())) {
            MatchPhaseLimiter.Limited limited = limiter.get().limit(match.hits(), index.lidLimit(), query.root());
            match = new MatchResult(limited.hits(), match.terms(), match.nearestNeighbors(), match.rankTerms(), match.predicates());
            if (limited.degraded()) {
                degraded = true;
                covered -= index.searchedCount() - coveredDocuments(index, limited.coveredDocIdSpace());
            }
        }
        total += match.hitCount();
        return match;
    }

    /** The active documents a covered document id space stands for, as proton's updateCoverage scales it. */
    private static long coveredDocuments(DocumentIndex index, long coveredSpace) {
        long space = Math.max(1, index.lidLimit());
        long estimate = coveredSpace >= space ? space : coveredSpace + 1;
        return estimate * index.searchedCount() / space;
    }

    /** Ranks the matches on the threads the policy gives this query, one program per thread. */
    private Ranker.Ranked rank(DocumentIndex index, RankProfile profile, MatchResult match, MatchResult hits) {
        long compileStart = System.nanoTime();
        RankProgramCache.Lease lease = borrow(index, profile, match);
        RankProgram program = lease.program();
        if (trace != null) trace.phase(index.name(), "rank program", compileStart, lease.cached() ? "cached" : "compiled");
        programs.put(index.name(), program);
        int rerank = query.properties().string("vespa.hitcollector.heapsize").map(Integer::parseInt).orElse(profile.rerankCount());
        // programs that read the query's terms are compiled per query: one per thread would cost more than it saves
        int threadCount = program.readsTerms() ? 1 : threads.threadsFor(profile, query.properties(), hits.hitCount());
        RankProgram[] threadPrograms = new RankProgram[threadCount];
        threadPrograms[0] = program;
        for (int t = 1; t < threadCount; t++) threadPrograms[t] = borrow(index, profile, match).program();
        Ranker.Ranked ranked = Ranker.rank(index.name(), threadPrograms, hits.lids(), hits.hitCount(), rerank, collector.wanted(),
                                           RankScoreDropLimits.of(profile, query.properties()), threads.runner());
        total -= ranked.dropped(); // proton counts only the hits the drop limits kept
        if (trace != null) {
            trace.duration(index.name(), "first phase", ranked.firstPhaseNanos(), ranked.matched() + " ranked with '" + query.rankProfile() + "' on "
                                                                                  + threadCount + " thread" + (threadCount == 1 ? "" : "s"));
            trace.duration(index.name(), "second phase", ranked.secondPhaseNanos(), ranked.reranked() + " reranked");
            if (ranked.dropped() > 0) trace.event(index.name() + ": " + ranked.dropped() + " dropped by the rank-score-drop-limits");
        }
        return ranked;
    }

    private RankProgramCache.Lease borrow(DocumentIndex index, RankProfile profile, MatchResult match) {
        RankProgramCache.Lease lease = programCache.borrow(profile, node.assets(index.name()), index, () -> match, query.properties(), clockSecond);
        leases.add(lease);
        return lease;
    }

    private SearchResult result() {
        List<RankedHit> page = collector.page();
        byte[] groupingBlob = null;
        if (collector.grouping().isPresent()) {
            long groupingStart = System.nanoTime();
            groupingBlob = GroupingBlob.write(collector.grouping().get().finish());
            if (trace != null) trace.phase("", "grouping", groupingStart, "");
        }
        byte[] traced = trace != null ? trace.finish() : null;
        Map<String, FeatureBlock> featuresByType = matchFeatures(page);
        Map<String, Integer> rowOfType = new HashMap<>();
        List<SearchResult.Hit> hits = new ArrayList<>(page.size());
        for (RankedHit hit : page) {
            int row = rowOfType.merge(hit.documentType(), 1, Integer::sum) - 1;
            hits.add(new SearchResult.Hit(node.index(hit.documentType()).globalId(hit.lid()).getRawId(), hit.relevance(), hit.sortData(),
                                          featuresByType.get(hit.documentType()), row));
        }
        return new SearchResult(total, degraded, softTimeout, covered, active, groupingBlob, traced, hits);
    }

    /** The match features of the page's hits, per document type: computed as one block of that type's hits, in page order. */
    private Map<String, FeatureBlock> matchFeatures(List<RankedHit> page) {
        Map<String, int[]> lidsOfType = new LinkedHashMap<>();
        Map<String, Integer> countOfType = new HashMap<>();
        for (RankedHit hit : page) {
            int count = countOfType.merge(hit.documentType(), 1, Integer::sum);
            int[] lids = lidsOfType.computeIfAbsent(hit.documentType(), __ -> new int[page.size()]);
            lids[count - 1] = hit.lid();
        }
        Map<String, FeatureBlock> blocks = new HashMap<>();
        lidsOfType.forEach((type, lids) -> {
            RankProgram program = programs.get(type);
            blocks.put(type, program.outputs(program.matchFeatures(), lids, countOfType.get(type)));
        });
        return blocks;
    }

    /** Gives back the borrowed rank programs. */
    @Override
    public void close() { leases.forEach(RankProgramCache.Lease::close); }

}
