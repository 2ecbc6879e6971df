package ai.dwell.runtime.serve.search;

import com.yahoo.container.jdisc.HttpRequest;
import com.yahoo.container.jdisc.HttpResponse;
import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;
import com.yahoo.jdisc.Response;
import com.yahoo.jdisc.handler.CompletionHandler;
import com.yahoo.jdisc.handler.ContentChannel;
import com.yahoo.jdisc.handler.ResponseHandler;
import com.yahoo.jdisc.test.TestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard with a real JDisc request and a real threaded handler on a pool of one thread and a
 * queue of two: a query that waited longer than the bound with another behind it is refused, the last
 * one waiting runs however long it waited (no standing queue), one that waited less runs, and one
 * beyond the queue is refused at once.
 */
class SearchWaitGuardTest {

    private final TestDriver driver = TestDriver.newSimpleApplicationInstanceWithoutOsgi();
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(2));
    private final CountDownLatch release = new CountDownLatch(1);
    private final ThreadedHttpRequestHandler search = new ThreadedHttpRequestHandler(pool) {
        @Override public HttpResponse handle(HttpRequest request) {
            if (request.getProperty("block") != null) {
                try { release.await(); } catch (InterruptedException e) { throw new IllegalStateException(e); }
            }
            return new HttpResponse(200) { @Override public void render(OutputStream out) { } };
        }
    };

    SearchWaitGuardTest() {
        driver.activateContainer(driver.newContainerBuilder());
    }

    @AfterEach
    void close() {
        release.countDown();
        pool.shutdown();
        driver.close();
    }

    @Test
    void refusesWhatWaitedLongerThanTheBoundFromAStandingQueue() throws Exception {
        SearchWaitGuard guard = new SearchWaitGuard(search, new QueueWaitBound(Duration.ofMillis(200)));
        Answer running = send(guard, "/search/?block=true");
        Answer waiting = send(guard, "/search/");
        Answer last = send(guard, "/search/");
        Thread.sleep(400); // both wait for the first, longer than the bound
        Answer full = send(guard, "/search/");
        assertEquals(503, full.status().get(5, TimeUnit.SECONDS).getStatus(), "beyond the queue: refused at once");
        assertEquals("the search queue is full", full.status().get().headers().getFirst(OverloadResponse.REASON_HEADER));
        release.countDown();
        assertEquals(200, running.status().get(5, TimeUnit.SECONDS).getStatus());
        Response refused = waiting.status().get(5, TimeUnit.SECONDS);
        assertEquals(503, refused.getStatus(), "waited too long, with another behind it");
        assertTrue(refused.headers().getFirst(OverloadResponse.REASON_HEADER).contains("over the bound of 200 ms"),
                   refused.headers().toString());
        assertEquals(200, last.status().get(5, TimeUnit.SECONDS).getStatus(), "waited too long, but nobody behind it");
        assertEquals(200, send(guard, "/search/").status().get(5, TimeUnit.SECONDS).getStatus(), "an idle pool runs it");
    }

    @Test
    void withTheBoundOffEverythingQueuedRuns() throws Exception {
        SearchWaitGuard guard = new SearchWaitGuard(search, new QueueWaitBound(Duration.ZERO));
        Answer running = send(guard, "/search/?block=true");
        Answer waiting = send(guard, "/search/");
        Thread.sleep(100);
        release.countDown();
        assertEquals(200, running.status().get(5, TimeUnit.SECONDS).getStatus());
        assertEquals(200, waiting.status().get(5, TimeUnit.SECONDS).getStatus());
    }

    private record Answer(CompletableFuture<Response> status) implements ResponseHandler {
        @Override public ContentChannel handleResponse(Response response) {
            status.complete(response);
            return new ContentChannel() {
                @Override public void write(ByteBuffer buf, CompletionHandler handler) { if (handler != null) handler.completed(); }
                @Override public void close(CompletionHandler handler) { if (handler != null) handler.completed(); }
            };
        }
    }

    private Answer send(SearchWaitGuard guard, String path) {
        var request = com.yahoo.jdisc.http.HttpRequest.newServerRequest(driver, URI.create("http://localhost:8080" + path));
        Answer answer = new Answer(new CompletableFuture<>());
        try {
            guard.handleRequest(request, answer).close(null);
        }
        finally {
            request.release();
        }
        return answer;
    }

}
