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

/**
 * In front of Vespa's search handler, bounding how long a query waits for a search thread.
 *
 * Vespa's container admits queries through the search handler's thread pool: while all its threads
 * are busy a query waits in the pool's queue, and when the queue is full it is refused with 503 at
 * once. Under a sustained surge that queue stays full, so every admitted query waits for all those
 * ahead of it. This guard keeps the waiting queries in a {@link SearchQueue} and hands the pool a
 * turn for each, as Vespa's handler hands it a task for each: the pool's threads and queue bound how
 * many wait, as before. A thread taking a turn runs the query the queue gives, through Vespa's
 * handler: the oldest while the queue drains, the newest once it backs up, and no more at once than
 * {@link RunningQueries} (one per core); and it refuses, as the full pool refuses (503), those that
 * waited longer than the {@link QueueWaitBound} (or twice a query's running time, if longer) from a
 * standing queue, in microseconds. What is
 * admitted in a surge waits about nothing and has the cores to itself, and nothing is left queued
 * when the surge ends.
 */
public class SearchWaitGuard extends AbstractRequestHandler {

    private final ThreadedHttpRequestHandler search;
    private final SearchQueue<QueuedSearch> queue;
    private final String overBound;

    @Inject
    public SearchWaitGuard(SearchHandler search) {
        this(search, QueueWaitBound.fromEnvironment(), RunningQueries.fromEnvironment());
    }

    public SearchWaitGuard(ThreadedHttpRequestHandler search, QueueWaitBound bound, RunningQueries running) {
        this.search = search;
        this.queue = new SearchQueue<>(bound, running.limit());
        this.overBound = "waited in the search queue over the bound of " + bound.maxWait().toMillis() + " ms (" +
                         QueueWaitBound.VARIABLE + ")";
    }

    @Override
    public ContentChannel handleRequest(Request request, ResponseHandler responseHandler) {
        if (request.getTimeout(TimeUnit.MILLISECONDS) == null && search.getTimeout() != null)
            request.setTimeout(search.getTimeout().toMillis(), TimeUnit.MILLISECONDS);
        BufferedContentChannel content = new BufferedContentChannel();
        if ( ! queue.add(new QueuedSearch(search, request, content, responseHandler))) return content;
        try {
            search.executor().execute(this::takeTurn);
        }
        catch (RejectedExecutionException e) {
            QueuedSearch evicted = queue.evict();
            if (evicted != null) evicted.refuse("the search queue is full");
        }
        return content;
    }

    /**
     * A search thread's turn: refuses what waited too long and runs what the queue gives, then the
     * next, until the queue has nothing for it.
     */
    private void takeTurn() {
        SearchQueue.Taken<QueuedSearch> taken = queue.take(System.nanoTime());
        while (true) {
            for (QueuedSearch stale : taken.refuse()) stale.refuse(overBound);
            if (taken.run() == null) return;
            long started = System.nanoTime();
            try {
                taken.run().run();
            }
            catch (Throwable t) {
                queue.failed();
                throw t;
            }
            long finished = System.nanoTime();
            taken = queue.takeAfter(finished, finished - started);
        }
    }

}
