package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.MatchResult;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Compiled rank programs of one content node, kept between queries so that a query does not compile
 * its rank profile again. A program folds what it read from the query (query(name) inputs, rank
 * properties) into constants, so it is reused only for a query with the same values of exactly those
 * properties (compared byte for byte). now from the clock is not folded: each query sets it
 * ({@link RankProgram#startQuery}), so one program serves every second. Programs that depend on the
 * query terms (bm25, nativeRank) are compiled per query.
 *
 * <p>A program is used by one thread at a time: {@link #borrow} takes an idle one (or compiles one),
 * {@link Lease#close} gives it back. The node holds one cache per generation of its package, so a
 * redeploy starts empty. Bounded: a few signatures per profile, a few idle programs per signature.
 */
public final class RankProgramCache {

    private static final int SIGNATURES_PER_PROFILE = 8;
    private static final int IDLE_PER_SIGNATURE = 8;

    private final Map<String, Signatures> byProfile = new ConcurrentHashMap<>();
    private final AtomicLong hits = new AtomicLong(), compiles = new AtomicLong();

    /** A program for the query, and whether it came from the cache. Close to give it back. */
    public final class Lease implements AutoCloseable {

        private final RankProgram program;
        private final Entry entry; // null: not cacheable
        private final boolean cached;

        private Lease(RankProgram program, Entry entry, boolean cached) {
            this.program = program;
            this.entry = entry;
            this.cached = cached;
        }

        public RankProgram program() { return program; }

        public boolean cached() { return cached; }

        @Override
        public void close() {
            if (entry != null) entry.giveBack(program);
        }

    }

    /**
     * A program of the profile for this query over the index, started at this second of the clock (now): an idle
     * cached one compiled for the same query values, else a newly compiled one. The match (its terms and
     * nearest-neighbor terms) is asked for only when a program is compiled.
     */
    public Lease borrow(RankProfile profile, RankAssets assets, DocumentIndex index, Supplier<MatchResult> match, QueryProperties query,
                        long clockSecond) {
        Signatures signatures = byProfile.computeIfAbsent(index.name() + "\u0000" + profile.name(), k -> new Signatures());
        Optional<Taken> idle = signatures.take(query);
        if (idle.isPresent()) {
            hits.incrementAndGet();
            idle.get().program().startQuery(clockSecond);
            return new Lease(idle.get().program(), idle.get().entry(), true);
        }
        QueryProperties recorded = query.recordingReads();
        RankProgram program = compiled(profile, assets, index, match, recorded, clockSecond);
        // outputs first: a match or summary feature may read the query's terms too (closeness, subqueries), and such a
        // program is bound to this query's match
        if ( ! program.compileOutputs() || program.readsTerms()) return new Lease(program, null, false);
        Entry entry = signatures.entryFor(new Signature(query, recorded.reads()));
        return new Lease(program, entry, false);
    }

    /**
     * A program compiled for this query alone, neither taken from the cache nor kept in it: for what may read the
     * query's terms beyond the phases and the match and summary features (ranking.listFeatures' rank features).
     */
    public Lease compile(RankProfile profile, RankAssets assets, DocumentIndex index, Supplier<MatchResult> match, QueryProperties query,
                         long clockSecond) {
        return new Lease(compiled(profile, assets, index, match, query, clockSecond), null, false);
    }

    private RankProgram compiled(RankProfile profile, RankAssets assets, DocumentIndex index, Supplier<MatchResult> match,
                                 QueryProperties query, long clockSecond) {
        compiles.incrementAndGet();
        MatchResult matched = match.get();
        RankProgram program = new RankProgram(profile, assets, index, matched.terms(), matched.nearestNeighbors(), matched.rankTerms(),
                                              matched.predicates(), query);
        program.startQuery(clockSecond);
        return program;
    }

    /** The signatures kept for a profile over an index (idle programs are kept per signature). */
    int signatures(String index, String profile) {
        Signatures signatures = byProfile.get(index + "\u0000" + profile);
        return signatures == null ? 0 : signatures.size();
    }

    /** Queries answered by a cached program, and programs compiled, since the node started. */
    public long hits() { return hits.get(); }
    public long compiles() { return compiles.get(); }

    /** What a program depends on: the values of the properties it read. */
    private record Signature(QueryProperties values, Set<String> reads) {

        boolean matches(QueryProperties query) { return values.sameValues(query, reads); }

    }

    /** The idle programs of one signature. */
    private static final class Entry {

        private final Signature signature;
        private final ArrayDeque<RankProgram> idle = new ArrayDeque<>();

        Entry(Signature signature) { this.signature = signature; }

        synchronized RankProgram poll() { return idle.pollFirst(); }

        synchronized void giveBack(RankProgram program) {
            if (idle.size() < IDLE_PER_SIGNATURE) idle.addFirst(program);
        }

    }

    private record Taken(Entry entry, RankProgram program) {}

    /** The signatures of one profile over one index, most recently used first. */
    private static final class Signatures {

        private final LinkedList<Entry> entries = new LinkedList<>();

        synchronized Optional<Taken> take(QueryProperties query) {
            for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
                Entry entry = it.next();
                if ( ! entry.signature.matches(query)) continue;
                RankProgram program = entry.poll();
                if (program == null) return Optional.empty();
                it.remove();
                entries.addFirst(entry);
                return Optional.of(new Taken(entry, program));
            }
            return Optional.empty();
        }

        synchronized int size() { return entries.size(); }

        synchronized Entry entryFor(Signature signature) {
            for (Entry entry : entries)
                if (entry.signature.reads.equals(signature.reads) && entry.signature.values.sameValues(signature.values, signature.reads))
                    return entry;
            Entry entry = new Entry(signature);
            entries.addFirst(entry);
            while (entries.size() > SIGNATURES_PER_PROFILE) entries.removeLast();
            return entry;
        }

    }

}
