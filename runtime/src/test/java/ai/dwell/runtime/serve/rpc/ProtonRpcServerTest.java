package ai.dwell.runtime.serve.rpc;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.MessageLite;
import com.yahoo.compress.CompressionType;
import com.yahoo.compress.Compressor;
import com.yahoo.jrt.DataValue;
import com.yahoo.jrt.ErrorCode;
import com.yahoo.jrt.Int32Value;
import com.yahoo.jrt.Int8Value;
import com.yahoo.jrt.Request;
import com.yahoo.jrt.Spec;
import com.yahoo.jrt.Supervisor;
import com.yahoo.jrt.Target;
import com.yahoo.jrt.Transport;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Inspector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The protocol as a jrt client speaks it, with no container. */
class ProtonRpcServerTest {

    private final CountDownLatch searchMayFinish = new CountDownLatch(1);
    private final FixedBackend backend = new FixedBackend();
    private final ProtonRpcServer server = new ProtonRpcServer(backend, "localhost", 0, 1);
    private final Supervisor client = new Supervisor(new Transport("client"));
    private final Target target = client.connect(new Spec("localhost", server.port()));
    private final Compressor compressor = new Compressor(CompressionType.LZ4, 5, 0.95, 0);

    @AfterEach
    void stop() {
        searchMayFinish.countDown();
        target.close();
        client.transport().shutdown().join();
        server.close();
    }

    @Test
    void pingsAreAnsweredWhileASearchIsSlow() throws Exception {
        FixedBackend slowBackend = new FixedBackend() {
            @Override public SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request) {
                try {
                    searchMayFinish.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return super.search(request);
            }
        };
        try (ProtonRpcServer slowServer = new ProtonRpcServer(slowBackend, "localhost", 0, 1)) {
            Target slowTarget = client.connect(new Spec("localhost", slowServer.port()));
            CompletableFuture<Request> search = new CompletableFuture<>();
            slowTarget.invokeAsync(request("vespa.searchprotocol.search", SearchProtocol.SearchRequest.newBuilder().setHits(10).build(), CompressionType.NONE),
                                   10, search::complete);

            Request ping = request("vespa.searchprotocol.ping", SearchProtocol.MonitorRequest.getDefaultInstance(), CompressionType.NONE);
            slowTarget.invokeSync(ping, 5);
            assertFalse(ping.isError(), ping.errorMessage());
            assertTrue(SearchProtocol.MonitorReply.parseFrom(payload(ping)).getOnline());
            assertFalse(search.isDone());

            searchMayFinish.countDown();
            Request searched = search.get(10, TimeUnit.SECONDS);
            assertFalse(searched.isError(), searched.errorMessage());
            assertEquals(2, SearchProtocol.SearchReply.parseFrom(payload(searched)).getHitsCount());
            slowTarget.close();
        }
    }

    @Test
    void compressedRequestsAreReadAndLargeDocsumRepliesCompressed() throws Exception {
        var docsumRequest = SearchProtocol.DocsumRequest.newBuilder();
        for (int i = 0; i < 100; i++)
            docsumRequest.addGlobalIds(FixedBackend.gid(FixedBackend.A)).addGlobalIds(FixedBackend.gid(FixedBackend.B));
        Request request = invoke("vespa.searchprotocol.getDocsums", docsumRequest.build(), CompressionType.LZ4);

        assertEquals(CompressionType.LZ4.getCode(), request.returnValues().get(0).asInt8());
        Inspector docsums = BinaryFormat.decode(SearchProtocol.DocsumReply.parseFrom(payload(request)).getSlimeSummaries().toByteArray())
                                        .get().field("docsums");
        assertEquals(200, docsums.entries());
        assertEquals("Foo Fighters", docsums.entry(0).field("docsum").field("title").asString());
        assertEquals(1997, docsums.entry(199).field("docsum").field("year").asLong());
        assertEquals(200, backend.lastDocsums.getGlobalIdsCount());
    }

    @Test
    void searchRepliesAreUncompressed() throws Exception {
        Request request = invoke("vespa.searchprotocol.search", SearchProtocol.SearchRequest.newBuilder().setHits(10).build(), CompressionType.NONE);

        assertEquals(CompressionType.NONE.getCode(), request.returnValues().get(0).asInt8());
        SearchProtocol.SearchReply reply = SearchProtocol.SearchReply.parseFrom(payload(request));
        assertEquals(5, reply.getTotalHitCount());
        assertEquals(FixedBackend.gid(FixedBackend.A), reply.getHits(0).getGlobalId());
        assertEquals(0.9, reply.getHits(0).getRelevance());
    }

    @Test
    void backendFailuresAreErrorsInRepliesOrOfTheRpc() throws Exception {
        backend.searchFailure = new IllegalStateException("index is broken");
        backend.docsumFailure = new IllegalStateException("summary store is broken");
        backend.pingFailure = new IllegalStateException("node is down");

        SearchProtocol.SearchReply searchReply = SearchProtocol.SearchReply.parseFrom(
                payload(invoke("vespa.searchprotocol.search", SearchProtocol.SearchRequest.getDefaultInstance(), CompressionType.NONE)));
        assertEquals("index is broken", searchReply.getErrors(0).getMessage());

        SearchProtocol.DocsumReply docsumReply = SearchProtocol.DocsumReply.parseFrom(
                payload(invoke("vespa.searchprotocol.getDocsums", SearchProtocol.DocsumRequest.getDefaultInstance(), CompressionType.NONE)));
        assertEquals("summary store is broken", docsumReply.getErrors(0).getMessage());
        assertEquals(0, BinaryFormat.decode(docsumReply.getSlimeSummaries().toByteArray()).get().field("docsums").entries());

        Request ping = invoke("vespa.searchprotocol.ping", SearchProtocol.MonitorRequest.getDefaultInstance(), CompressionType.NONE);
        assertEquals(ErrorCode.METHOD_FAILED, ping.errorCode());
        assertEquals("node is down", ping.errorMessage());
    }

    @Test
    void aNodeThreadThatThrowsAnErrorAnswersWithItAndTheNodeGoesOn() throws Exception {
        backend.searchError = new StackOverflowError();
        backend.docsumError = new AssertionError("a broken invariant");
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors() + 1; i++) { // more than the node's search threads
            SearchProtocol.SearchReply searchReply = SearchProtocol.SearchReply.parseFrom(
                    payload(invoke("vespa.searchprotocol.search", SearchProtocol.SearchRequest.getDefaultInstance(), CompressionType.NONE)));
            assertEquals("StackOverflowError", searchReply.getErrors(0).getMessage());
        }
        SearchProtocol.DocsumReply docsumReply = SearchProtocol.DocsumReply.parseFrom(
                payload(invoke("vespa.searchprotocol.getDocsums", SearchProtocol.DocsumRequest.getDefaultInstance(), CompressionType.NONE)));
        assertTrue(docsumReply.getErrors(0).getMessage().contains("a broken invariant"), docsumReply.getErrors(0).getMessage());

        backend.searchError = null;
        backend.docsumError = null;
        SearchProtocol.SearchReply reply = SearchProtocol.SearchReply.parseFrom(
                payload(invoke("vespa.searchprotocol.search", SearchProtocol.SearchRequest.getDefaultInstance(), CompressionType.NONE)));
        assertEquals(5, reply.getTotalHitCount(), "the node serves on");
    }

    @Test
    void malformedRequestsGetAnRpcError() {
        Request request = new Request("vespa.searchprotocol.search");
        request.parameters().add(new Int8Value(CompressionType.NONE.getCode()));
        request.parameters().add(new Int32Value(3));
        request.parameters().add(new DataValue(new byte[] { (byte) 0xff, (byte) 0xff, (byte) 0xff }));
        target.invokeSync(request, 5);

        assertEquals(ErrorCode.METHOD_FAILED, request.errorCode());
        assertTrue(request.errorMessage().startsWith("Malformed vespa.searchprotocol.search request"), request.errorMessage());
    }

    private Request invoke(String method, MessageLite message, CompressionType compression) {
        Request request = request(method, message, compression);
        target.invokeSync(request, 5);
        return request;
    }

    private Request request(String method, MessageLite message, CompressionType compression) {
        byte[] payload = message.toByteArray();
        Compressor.Compression compressed = compressor.compress(compression, payload);
        assertEquals(compression, compressed.type(), "request is compressed as asked");
        Request request = new Request(method);
        request.parameters().add(new Int8Value(compressed.type().getCode()));
        request.parameters().add(new Int32Value(payload.length));
        request.parameters().add(new DataValue(compressed.data()));
        return request;
    }

    private byte[] payload(Request request) {
        assertFalse(request.isError(), request.errorMessage());
        assertTrue(request.checkReturnTypes("bix"));
        return compressor.decompress(request.returnValues().get(2).asData(),
                                     CompressionType.valueOf(request.returnValues().get(0).asInt8()),
                                     request.returnValues().get(1).asInt32());
    }

}
