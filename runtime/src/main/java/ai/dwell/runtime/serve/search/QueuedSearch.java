package ai.dwell.runtime.serve.search;

import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;
import com.yahoo.jdisc.Request;
import com.yahoo.jdisc.ResourceReference;
import com.yahoo.jdisc.Response;
import com.yahoo.jdisc.handler.BufferedContentChannel;
import com.yahoo.jdisc.handler.CompletionHandler;
import com.yahoo.jdisc.handler.ContentChannel;
import com.yahoo.jdisc.handler.ResponseHandler;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One query in the search handler's queue: when a thread takes it, it runs through Vespa's handler
 * if it has not waited longer than the bound, and is refused otherwise. It holds a reference to the
 * request until then, as Vespa's handler holds one for the queries it queues.
 */
final class QueuedSearch implements Runnable, ResponseHandler {

    private static final Logger log = Logger.getLogger(QueuedSearch.class.getName());

    private final ThreadedHttpRequestHandler search;
    private final QueueWaitBound bound;
    private final AtomicInteger waiting;
    private final Request request;
    private final BufferedContentChannel content;
    private final ResponseHandler responseHandler;
    private final ResourceReference reference;
    private final long queuedNanos = System.nanoTime();

    QueuedSearch(ThreadedHttpRequestHandler search, QueueWaitBound bound, AtomicInteger waiting, Request request,
                 BufferedContentChannel content, ResponseHandler responseHandler) {
        this.search = search;
        this.bound = bound;
        this.waiting = waiting;
        this.request = request;
        this.content = content;
        this.responseHandler = responseHandler;
        this.reference = request.refer(this);
    }

    @Override
    public void run() {
        try (ResourceReference held = reference) {
            long waited = System.nanoTime() - queuedNanos;
            int behind = waiting.decrementAndGet();
            if (bound.admits(waited, behind))
                search.handleRequest(request, content, this);
            else
                refuseUnreferenced("waited " + waited / 1_000_000 + " ms in the search queue, over the bound of " +
                                   bound.maxWait().toMillis() + " ms (" + QueueWaitBound.VARIABLE + ")");
        }
        catch (RuntimeException e) {
            log.log(Level.WARNING, "Failed handling a query", e);
        }
    }

    /** Refuses the query before it was queued. */
    void refuse(String reason) {
        try (ResourceReference held = reference) {
            refuseUnreferenced(reason);
        }
    }

    private void refuseUnreferenced(String reason) {
        OverloadResponse.dispatch(responseHandler, reason);
        content.connectTo(DISCARD);
    }

    /** The handler's response, classified as a read as Vespa's handler classifies it. */
    @Override
    public ContentChannel handleResponse(Response response) {
        if (response.getRequestType() == null) response.setRequestType(Request.RequestType.READ);
        return responseHandler.handleResponse(response);
    }

    /** Takes the body of a refused query (a POSTed query) and drops it. */
    private static final ContentChannel DISCARD = new ContentChannel() {
        @Override public void write(ByteBuffer buffer, CompletionHandler completion) { if (completion != null) completion.completed(); }
        @Override public void close(CompletionHandler completion) { if (completion != null) completion.completed(); }
    };

}
