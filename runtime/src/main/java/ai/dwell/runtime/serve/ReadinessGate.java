package ai.dwell.runtime.serve;

import ai.dwell.runtime.engine.SearchBackend;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;

/**
 * A content node that tells the container's dispatcher it is offline until it holds every
 * document, so that the dispatcher routes no query to it before then: a query gets an error it
 * can retry, not silently partial results. Also tells when the dispatcher has seen it online.
 */
class ReadinessGate implements SearchBackend {

    private final SearchBackend node;
    private volatile boolean ready = false;
    private volatile boolean seenReady = false;

    ReadinessGate(SearchBackend node) {
        this.node = node;
    }

    /** Marks the node as holding all documents: pings answer online from now on. */
    void setReady() { ready = true; }

    /** Whether the node holds all documents. */
    boolean isReady() { return ready; }

    /** Whether a ping has answered online: the dispatcher now uses this node. */
    boolean seenReady() { return seenReady; }

    @Override
    public SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request) {
        boolean online = ready;
        SearchProtocol.MonitorReply reply = node.ping(request);
        if ( ! online) return reply.toBuilder().setOnline(false).build();
        seenReady = true;
        return reply;
    }

    @Override
    public SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request) { return node.search(request); }

    @Override
    public SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request) { return node.getDocsums(request); }

}
