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
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One query waiting for a search thread: run through Vespa's handler, or refused (503). It holds a
 * reference to the request until then, as Vespa's handler holds one for the queries it queues.
 */
final class QueuedSearch implements Runnable, ResponseHandler, SearchQueue.Waiting {

    private static final Logger log = Logger.getLogger(QueuedSearch.class.getName());

    private final ThreadedHttpRequestHandler search;
    private final Request request;
    private final BufferedContentChannel content;
    private final ResponseHandler responseHandler;
    private final ResourceReference reference;
    private final long queuedNanos = System.nanoTime();

    QueuedSearch(ThreadedHttpRequestHandler search, Request request, BufferedContentChannel content,
                 ResponseHandler responseHandler) {
        this.search = search;
        this.request = request;
        this.content = content;
        this.responseHandler = responseHandler;
        this.reference = request.refer(this);
    }

    @Override
    public long queuedNanos() { return queuedNanos; }

    /** Runs the query through Vespa's handler. */
    @Override
    public void run() {
        try (ResourceReference held = reference) {
            search.handleRequest(request, content, this);
        }
        catch (RuntimeException e) {
            log.log(Level.WARNING, "Failed handling a query", e);
        }
    }

    /** Answers 503, saying why, and drops the body. */
    void refuse(String reason) {
        try (ResourceReference held = reference) {
            OverloadResponse.dispatch(responseHandler, reason);
            content.connectTo(DISCARD);
        }
        catch (RuntimeException e) {
            log.log(Level.WARNING, "Failed refusing a query", e);
        }
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
