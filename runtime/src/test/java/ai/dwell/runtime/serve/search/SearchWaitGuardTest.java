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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guard with a real JDisc request and a real threaded handler on a pool of one thread (and one
 * query running at once) and a queue of four: beyond the queue the oldest waiting query is refused
 * at once, those that waited longer than the bound from a standing queue are refused when a thread
 * comes, the newest runs first once the queue backs up, and with the bound off everything queued
 * runs in order.
 */
class SearchWaitGuardTest {

    private final TestDriver driver = TestDriver.newSimpleApplicationInstanceWithoutOsgi();
    private final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES, new ArrayBlockingQueue<>(4));
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> ran = new CopyOnWriteArrayList<>();
    private final ThreadedHttpRequestHandler search = new ThreadedHttpRequestHandler(pool) {
        @Override public HttpResponse handle(HttpRequest request) {
            ran.add(request.getProperty("name"));
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
    void refusesTheOldestBeyondTheQueueAndWhatWaitedLongerThanTheBound() throws Exception {
        SearchWaitGuard guard = warmGuard(200);
        Answer running = block(guard);
        List<Answer> waiting = new ArrayList<>();
        for (int i = 0; i < 4; i++) waiting.add(send(guard, "/search/?name=waiting" + i));
        Thread.sleep(400); // all wait for the first, longer than the bound
        Answer newest = send(guard, "/search/?name=newest");
        Response full = waiting.get(0).status().get(5, TimeUnit.SECONDS);
        assertEquals(503, full.getStatus(), "beyond the queue: the oldest is refused at once");
        assertEquals("the search queue is full", full.headers().getFirst(OverloadResponse.REASON_HEADER));
        release.countDown();
        assertEquals(200, running.status().get(5, TimeUnit.SECONDS).getStatus());
        // four wait behind one thread: more than two rounds, so the stale are refused down to two
        for (Answer stale : waiting.subList(1, 3)) {
            Response refused = stale.status().get(5, TimeUnit.SECONDS);
            assertEquals(503, refused.getStatus(), "waited too long, from a standing queue");
            assertTrue(refused.headers().getFirst(OverloadResponse.REASON_HEADER).contains("over the bound of 200 ms"),
                       refused.headers().toString());
        }
        assertEquals(200, newest.status().get(5, TimeUnit.SECONDS).getStatus());
        assertEquals(200, waiting.get(3).status().get(5, TimeUnit.SECONDS).getStatus(), "no longer a standing queue");
        assertEquals(List.of("running", "newest", "waiting3"), ran);
        assertEquals(200, send(guard, "/search/?name=idle").status().get(5, TimeUnit.SECONDS).getStatus(), "an idle pool runs it");
    }

    @Test
    void theLastOneWaitingRunsHoweverLongItWaited() throws Exception {
        SearchWaitGuard guard = warmGuard(100);
        Answer running = block(guard);
        Answer alone = send(guard, "/search/?name=alone");
        Thread.sleep(300);
        release.countDown();
        assertEquals(200, running.status().get(5, TimeUnit.SECONDS).getStatus());
        assertEquals(200, alone.status().get(5, TimeUnit.SECONDS).getStatus(), "no standing queue: a stall, not overload");
    }

    @Test
    void aBackedUpQueueRunsTheNewestFirst() throws Exception {
        SearchWaitGuard guard = warmGuard(2000);
        Answer running = block(guard);
        Answer first = send(guard, "/search/?name=first");
        Thread.sleep(1100); // over half the bound: backed up, but not stale
        Answer second = send(guard, "/search/?name=second");
        release.countDown();
        for (Answer answer : List.of(running, first, second))
            assertEquals(200, answer.status().get(5, TimeUnit.SECONDS).getStatus());
        assertEquals(List.of("running", "second", "first"), ran);
    }

    @Test
    void withTheBoundOffEverythingQueuedRunsInOrder() throws Exception {
        SearchWaitGuard guard = new SearchWaitGuard(search, new QueueWaitBound(Duration.ZERO), new RunningQueries(1));
        Answer running = block(guard);
        List<Answer> waiting = new ArrayList<>(List.of(running));
        for (int i = 0; i < 4; i++) waiting.add(send(guard, "/search/?name=waiting" + i));
        Thread.sleep(100);
        Answer full = send(guard, "/search/?name=full");
        assertEquals(503, full.status().get(5, TimeUnit.SECONDS).getStatus(), "beyond the queue: the newest is refused, as Vespa's pool does");
        release.countDown();
        for (Answer answer : waiting)
            assertEquals(200, answer.status().get(5, TimeUnit.SECONDS).getStatus());
        assertEquals(List.of("running", "waiting0", "waiting1", "waiting2", "waiting3"), ran);
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

    /**
     * A guard with this bound and one query running at once, after a fast query, so that its average
     * running time is a fast query's: the bound then stays what the test sets, and does not stretch
     * to twice the blocked query's time.
     */
    private SearchWaitGuard warmGuard(long boundMillis) throws Exception {
        SearchWaitGuard guard = new SearchWaitGuard(search, new QueueWaitBound(Duration.ofMillis(boundMillis)), new RunningQueries(1));
        assertEquals(200, send(guard, "/search/?name=warm").status().get(5, TimeUnit.SECONDS).getStatus());
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (pool.getActiveCount() > 0 && System.nanoTime() < deadline) Thread.sleep(5); // its thread leaves its turn
        ran.clear();
        return guard;
    }

    /** Sends a query that holds the pool's thread until released, once the thread runs it. */
    private Answer block(SearchWaitGuard guard) throws InterruptedException {
        Answer running = send(guard, "/search/?block=true&name=running");
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ( ! ran.contains("running") && System.nanoTime() < deadline) Thread.sleep(1);
        return running;
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
