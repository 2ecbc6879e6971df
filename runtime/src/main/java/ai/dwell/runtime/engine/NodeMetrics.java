package ai.dwell.runtime.engine;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a content node counts of the requests it serves, since it started, under the names proton reports them:
 * searches (content.proton.search_protocol.query.latency, in seconds: count, sum, max) with the hits they matched
 * (content.proton.documentdb.matching.docs_matched), failed searches, and summary requests
 * (content.proton.search_protocol.docsum.latency, content.proton.search_protocol.docsum.requested_documents).
 * Adding is lock free; a snapshot is a consistent enough read of each counter.
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
