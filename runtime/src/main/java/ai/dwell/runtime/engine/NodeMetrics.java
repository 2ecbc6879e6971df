package ai.dwell.runtime.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a content node counts of the requests it serves, since it started, under the names proton reports them:
 * searches (content.proton.search_protocol.query.latency, in seconds: count, sum, max) with the hits they matched
 * (content.proton.documentdb.matching.docs_matched), failed searches, and summary requests
 * (content.proton.search_protocol.docsum.latency, content.proton.search_protocol.docsum.requested_documents); and per
 * document type and rank profile (content.proton.documentdb.matching.rank_profile.*), the queries, their latency on
 * that type, the time matching and the first phase took (match_time) and the second (rerank_time), and the documents
 * matched and reranked. Adding is lock free; a snapshot is a consistent enough read of each counter.
 */
public final class NodeMetrics {

    private final Latency queries = new Latency();
    private final Latency docsums = new Latency();
    private final LongAdder matched = new LongAdder();
    private final LongAdder failedQueries = new LongAdder();
    private final LongAdder requestedDocuments = new LongAdder();

    void query(long nanos, long hitsMatched, boolean failed) {
        queries.add(nanos);
        matched.add(hitsMatched);
        if (failed) failedQueries.increment();
    }

    private final Map<List<String>, RankProfileCounters> rankProfiles = new java.util.concurrent.ConcurrentHashMap<>();

    /** The counters of a rank profile on a document type. */
    RankProfileCounters rankProfile(String documentType, String profile) {
        return rankProfiles.computeIfAbsent(List.of(documentType, profile), __ -> new RankProfileCounters());
    }

    /** The values now of each document type and rank profile queried: keyed by [document type, rank profile]. */
    public Map<List<String>, Map<String, Number>> rankProfileSnapshots() {
        Map<List<String>, Map<String, Number>> snapshots = new java.util.TreeMap<>(java.util.Comparator.comparing(Object::toString));
        rankProfiles.forEach((key, counters) -> snapshots.put(key, counters.snapshot()));
        return snapshots;
    }

    void docsums(long nanos, int documents) {
        docsums.add(nanos);
        requestedDocuments.add(documents);
    }

    /** The values now, by proton's metric name and aggregate (e.g. content.proton.search_protocol.query.latency.sum). */
    public Map<String, Number> snapshot() {
        return Map.of("content.proton.search_protocol.query.latency.count", queries.count.sum(),
                      "content.proton.search_protocol.query.latency.sum", queries.nanos.sum() / 1e9,
                      "content.proton.search_protocol.query.latency.max", queries.max.get() / 1e9,
                      "content.proton.documentdb.matching.docs_matched.count", matched.sum(),
                      "content.proton.search_protocol.query.failed.count", failedQueries.sum(),
                      "content.proton.search_protocol.docsum.latency.count", docsums.count.sum(),
                      "content.proton.search_protocol.docsum.latency.sum", docsums.nanos.sum() / 1e9,
                      "content.proton.search_protocol.docsum.latency.max", docsums.max.get() / 1e9,
                      "content.proton.search_protocol.docsum.requested_documents.count", requestedDocuments.sum());
    }

    static final class RankProfileCounters {
        private static final String PREFIX = "content.proton.documentdb.matching.rank_profile.";
        private final Latency latency = new Latency();
        private final LongAdder matchNanos = new LongAdder(), rerankNanos = new LongAdder(), matched = new LongAdder(), reranked = new LongAdder();

        void add(long latencyNanos, long matchNanos, long rerankNanos, long matched, long reranked) {
            latency.add(latencyNanos);
            this.matchNanos.add(matchNanos);
            this.rerankNanos.add(rerankNanos);
            this.matched.add(matched);
            this.reranked.add(reranked);
        }

        Map<String, Number> snapshot() {
            return Map.of(PREFIX + "queries.count", latency.count.sum(),
                          PREFIX + "query_latency.sum", latency.nanos.sum() / 1e9,
                          PREFIX + "query_latency.max", latency.max.get() / 1e9,
                          PREFIX + "match_time.sum", matchNanos.sum() / 1e9,
                          PREFIX + "rerank_time.sum", rerankNanos.sum() / 1e9,
                          PREFIX + "docs_matched.count", matched.sum(),
                          PREFIX + "docs_reranked.count", reranked.sum());
        }
    }

    private static final class Latency {
        final LongAdder count = new LongAdder();
        final LongAdder nanos = new LongAdder();
        final AtomicLong max = new AtomicLong();
        void add(long elapsed) {
            count.increment();
            nanos.add(elapsed);
            max.accumulateAndGet(elapsed, Math::max);
        }
    }

}
