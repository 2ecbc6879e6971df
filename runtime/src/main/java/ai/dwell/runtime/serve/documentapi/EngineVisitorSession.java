package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.BucketId;
import com.yahoo.document.BucketIdFactory;
import ai.dwell.runtime.engine.ContentNode;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.document.select.Result;
import com.yahoo.document.select.parser.ParseException;
import com.yahoo.documentapi.AckToken;
import com.yahoo.documentapi.ProgressToken;
import com.yahoo.documentapi.VisitorControlHandler;
import com.yahoo.documentapi.VisitorDataHandler;
import com.yahoo.documentapi.VisitorIterator;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.documentapi.VisitorResponse;
import com.yahoo.documentapi.VisitorSession;
import com.yahoo.documentapi.messagebus.protocol.PutDocumentMessage;
import com.yahoo.messagebus.Trace;
import com.yahoo.vdslib.VisitorStatistics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Visits stored documents the way Vespa does: bucket by bucket in the order of Vespa's own
 * VisitorIterator, so that continuation tokens are Vespa's progress tokens, and each document
 * existing through the visit is seen once. Documents go to the local data handler; progress
 * and completion to the control handler. As Vespa's visitors, a visit is done only once the data handler has acked
 * every document it was given: /document/v1's delete and update by selection ack a document once they have sent its
 * operation, so their response never comes before an operation is sent (before, it could: their operations queue
 * on another thread, and a delete by selection answered 200 while some of its removes were still unsent).
 */
class EngineVisitorSession implements VisitorSession {

    private static final Logger log = Logger.getLogger(EngineVisitorSession.class.getName());
    static final int DISTRIBUTION_BITS = 16;
    static final String SEARCH_VISITOR = "searchvisitor";
    static final long MAX_ACK_WAIT_MS = 300_000;

    private final DocumentBackend backend;
    private final VisitorParameters parameters;
    private final VisitorIterator iterator;
    private final BucketIdFactory buckets = new BucketIdFactory();
    private final AtomicBoolean aborted = new AtomicBoolean();
    private final Thread worker;
    private final Object acks = new Object();
    private long unacked = 0; // documents given to the data handler and not yet acked; guarded by acks

    EngineVisitorSession(DocumentBackend backend, VisitorParameters parameters) throws ParseException {
        this.backend = backend;
        this.parameters = parameters;
        ProgressToken progress = parameters.getResumeToken() != null ? parameters.getResumeToken() : new ProgressToken();
        String selection = parameters.getDocumentSelection() == null ? "" : parameters.getDocumentSelection();
        this.iterator = VisitorIterator.createFromDocumentSelection(selection, buckets, DISTRIBUTION_BITS, progress,
                                                                    Math.max(1, parameters.getSlices()), parameters.getSliceId());
        if (parameters.getControlHandler() == null) parameters.setControlHandler(new VisitorControlHandler()); // as Vespa's session does
        if (parameters.getLocalDataHandler() != null) parameters.getLocalDataHandler().setSession(this);
        parameters.getControlHandler().setSession(this);
        this.worker = new Thread(SEARCH_VISITOR.equals(parameters.getVisitorLibrary()) ? this::search : this::visit, "visitor");
        worker.setDaemon(true);
        worker.start();
    }

    private void visit() {
        VisitorControlHandler control = parameters.getControlHandler();
        try {
            Map<Long, List<Document>> bySuperbucket = documentsBySuperbucket();
            VisitorDataHandler data = parameters.getLocalDataHandler();
            long wanted = parameters.getMaxTotalHits() < 0 ? Long.MAX_VALUE : parameters.getMaxTotalHits();
            long sent = 0;
            while ( ! aborted.get() && iterator.hasNext() && sent < wanted) {
                VisitorIterator.BucketProgress next = iterator.getNext();
                for (Document document : bySuperbucket.getOrDefault(next.getSuperbucket().getId(), List.of())) {
                    Document visited = backend.withFields(document, parameters.getFieldSet());
                    if (data != null) {
                        synchronized (acks) { unacked++; }
                        data.onMessage(new PutDocumentMessage(new DocumentPut(visited)), new AckToken(this));
                    }
                    sent++;
                }
                iterator.update(next.getSuperbucket(), ProgressToken.FINISHED_BUCKET);
            }
            awaitAcks();
            if (control != null) {
                control.onProgress(iterator.getProgressToken());
                control.onDone(aborted.get() ? VisitorControlHandler.CompletionCode.ABORTED
                                             : VisitorControlHandler.CompletionCode.SUCCESS, "");
            }
        }
        catch (RuntimeException | ParseException e) {
            log.log(Level.WARNING, "Visiting failed", e);
            if (control != null) control.onDone(VisitorControlHandler.CompletionCode.FAILURE, e.getMessage());
        }
    }

    /**
     * A streaming query (a visit with the search visitor library, as Vespa's container sends it): the documents the
     * selection accepts (the query's group or selection) are searched by the content nodes of the cluster visited,
     * each node's query result goes to the data handler, and the visit statistics count the documents searched.
     */
    private void search() {
        VisitorControlHandler control = parameters.getControlHandler();
        try {
            String cluster = clusterOf(parameters.getRoute() == null ? null : parameters.getRoute().toString());
            List<DocumentId> documents = new ArrayList<>();
            documentsBySuperbucket().values().forEach(list -> list.forEach(document -> documents.add(document.getId())));
            List<ContentNode> nodes = DocumentAccesses.streamingNodes(cluster);
            VisitorDataHandler data = parameters.getLocalDataHandler();
            var results = new SearchVisitor(parameters.getLibraryParameters(), parameters.getSessionTimeoutMs()).search(nodes, documents);
            long returned = 0;
            for (var result : results) {
                returned += result.getResult().getHitCount();
                if (data != null) data.onMessage(result, new AckToken(this));
            }
            VisitorStatistics statistics = new VisitorStatistics();
            statistics.setDocumentsVisited(documents.size());
            statistics.setBucketsVisited(buckets(documents));
            statistics.setDocumentsReturned(returned);
            control.onVisitorStatistics(statistics);
            control.onDone(aborted.get() ? VisitorControlHandler.CompletionCode.ABORTED : VisitorControlHandler.CompletionCode.SUCCESS, "");
        }
        catch (RuntimeException | ParseException e) {
            log.log(Level.WARNING, "Streaming search failed", e);
            control.onDone(VisitorControlHandler.CompletionCode.FAILURE, e.getMessage());
        }
    }

    private int buckets(List<DocumentId> documents) {
        return (int) documents.stream().map(id -> new BucketId(DISTRIBUTION_BITS, buckets.getBucketId(id).getRawId()).getId()).distinct().count();
    }

    /** The content cluster a route names: the cluster itself, or "[Content:cluster=name]" as Vespa writes a storage route. */
    static String clusterOf(String route) {
        if (route == null) return null;
        int at = route.indexOf("cluster=");
        if (at < 0) return route;
        String rest = route.substring(at + "cluster=".length());
        int end = 0;
        while (end < rest.length() && (Character.isLetterOrDigit(rest.charAt(end)) || "_-.".indexOf(rest.charAt(end)) >= 0)) end++;
        return rest.substring(0, end);
    }

    /**
     * The documents of the bucket space that the selection accepts, last written within the visit's time period, by the
     * superbucket holding them. The period is [fromTimestamp, toTimestamp] in microseconds, as the store's write
     * timestamps; a toTimestamp of 0 is no upper bound, as Vespa's visitor session sends it to the content nodes.
     */
    private Map<Long, List<Document>> documentsBySuperbucket() throws ParseException {
        String selection = parameters.getDocumentSelection();
        DocumentSelector selector = selection == null || selection.isBlank() ? null : new DocumentSelector(selection);
        long from = parameters.getFromTimestamp();
        long to = parameters.getToTimestamp() == 0 ? Long.MAX_VALUE : parameters.getToTimestamp();
        Map<Long, List<Document>> bySuperbucket = new HashMap<>();
        backend.forEach(parameters.getBucketSpace(), parameters.getRoute() == null ? null : parameters.getRoute().toString(), document -> {
            Long written = document.getLastModified();
            if (written != null && (written < from || written > to)) return;
            if (selector != null && selector.accepts(new DocumentPut(document)) != Result.TRUE) return;
            BucketId bucket = buckets.getBucketId(document.getId());
            long superbucket = new BucketId(DISTRIBUTION_BITS, bucket.getRawId()).getId();
            bySuperbucket.computeIfAbsent(superbucket, key -> new ArrayList<>()).add(document);
        });
        return bySuperbucket;
    }

    @Override public boolean isDone() { return ! worker.isAlive(); }

    @Override public ProgressToken getProgress() { return iterator.getProgressToken(); }

    @Override public Trace getTrace() { return new Trace(); }

    @Override
    public boolean waitUntilDone(long timeoutMs) throws InterruptedException {
        worker.join(Math.max(1, timeoutMs));
        return isDone();
    }

    /** Waits until every document given to the data handler is acked, the visit is aborted, or its session times out. */
    private void awaitAcks() {
        long timeoutMs = parameters.getSessionTimeoutMs() > 0 ? parameters.getSessionTimeoutMs() : Long.MAX_VALUE;
        long deadline = System.currentTimeMillis() + Math.min(timeoutMs, MAX_ACK_WAIT_MS);
        synchronized (acks) {
            while (unacked > 0 && ! aborted.get()) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) throw new IllegalStateException(unacked + " visited documents were not acked by the data handler in time");
                try { acks.wait(Math.min(left, 100)); }
                catch (InterruptedException e) { Thread.currentThread().interrupt(); throw new IllegalStateException("Interrupted waiting for acks", e); }
            }
        }
    }

    @Override
    public void ack(AckToken token) {
        synchronized (acks) {
            unacked--;
            acks.notifyAll();
        }
    }

    @Override public void abort() { aborted.set(true); }

    @Override public VisitorResponse getNext() { return null; }

    @Override public VisitorResponse getNext(int timeoutMilliseconds) { return null; }

    @Override public void destroy() { abort(); }

}
