package ai.dwell.runtime.serve.search;

import com.yahoo.component.annotation.Inject;
import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;
import com.yahoo.jdisc.Request;
import com.yahoo.jdisc.handler.AbstractRequestHandler;
import com.yahoo.jdisc.handler.BufferedContentChannel;
import com.yahoo.jdisc.handler.ContentChannel;
import com.yahoo.jdisc.handler.ResponseHandler;
import com.yahoo.search.handler.SearchHandler;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * In front of Vespa's search handler, bounding how long a query waits for a search thread.
 *
 * Vespa's container admits queries through the search handler's thread pool: while all its threads
 * are busy a query waits in the pool's queue, and when the queue is full it is refused with 503 at
 * once. Under a sustained surge the queue stays full, so every admitted query waits for all those
 * ahead of it. This guard hands each query to the same pool, as Vespa's handler does, and when a
 * thread takes it, runs it through Vespa's handler only if it has waited no longer than the
 * {@link QueueWaitBound}, or nobody waits behind it; one that waited longer from a standing queue is refused as the full pool refuses (503), in
 * microseconds, so the queue is drained of what its clients would get too late. What is admitted
 * waits at most the bound, however long the surge.
 */
public class SearchWaitGuard extends AbstractRequestHandler {

    private final ThreadedHttpRequestHandler search;
    private final QueueWaitBound bound;
    private final AtomicInteger waiting = new AtomicInteger();

    @Inject
    public SearchWaitGuard(SearchHandler search) {
        this(search, QueueWaitBound.fromEnvironment());
    }

    public SearchWaitGuard(ThreadedHttpRequestHandler search, QueueWaitBound bound) {
        this.search = search;
        this.bound = bound;
    }

    @Override
    public ContentChannel handleRequest(Request request, ResponseHandler responseHandler) {
        if (request.getTimeout(TimeUnit.MILLISECONDS) == null && search.getTimeout() != null)
            request.setTimeout(search.getTimeout().toMillis(), TimeUnit.MILLISECONDS);
        BufferedContentChannel content = new BufferedContentChannel();
        QueuedSearch queued = new QueuedSearch(search, bound, waiting, request, content, responseHandler);
        waiting.incrementAndGet();
        try {
            search.executor().execute(queued);
        }
        catch (RejectedExecutionException e) {
            waiting.decrementAndGet();
            queued.refuse("the search queue is full");
        }
        return content;
    }

}
