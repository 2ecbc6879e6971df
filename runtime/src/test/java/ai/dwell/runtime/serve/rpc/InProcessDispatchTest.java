package ai.dwell.runtime.serve.rpc;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.MessageLite;
import com.yahoo.compress.CompressionType;
import com.yahoo.compress.Compressor;
import com.yahoo.jrt.DataValue;
import com.yahoo.jrt.Int32Value;
import com.yahoo.jrt.Int8Value;
import com.yahoo.jrt.Request;
import com.yahoo.jrt.Spec;
import com.yahoo.jrt.Supervisor;
import com.yahoo.jrt.Target;
import com.yahoo.jrt.Transport;
import com.yahoo.search.dispatch.rpc.Client;
import com.yahoo.search.dispatch.rpc.RpcClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The container's dispatch client as the runtime ships it (com.yahoo.search.dispatch.rpc.RpcClient) reaches a node of
 * the same JVM without the network, and gets what jrt would have returned: the same reply values for searches,
 * summaries (compressed as over jrt) and pings, and errors for what fails, for a malformed request and for a host and
 * port no node listens on, or no longer does.
 */
class InProcessDispatchTest {

    private final FixedBackend backend = new FixedBackend();
    private final Compressor compressor = new Compressor(CompressionType.LZ4, 5, 0.95, 0);
    private ProtonRpcServer server;
    private Supervisor jrt;
    private Target target;
    private Client.NodeConnection connection;

    @BeforeEach
    void start() {
        server = new ProtonRpcServer(backend, "localhost", 0, 1);
        jrt = new Supervisor(new Transport("client"));
        target = jrt.connect(new Spec("localhost", server.port()));
        connection = new RpcClient("dispatch-client", 1).createConnection("localhost", server.port());
    }

    @AfterEach
    void stop() {
        target.close();
        jrt.transport().shutdown().join();
        server.close();
    }

    @Test
    void repliesAreWhatJrtCarries() throws Exception {
        var docsums = SearchProtocol.DocsumRequest.newBuilder();
        for (int i = 0; i < 100; i++) docsums.addGlobalIds(FixedBackend.gid(FixedBackend.A)).addGlobalIds(FixedBackend.gid(FixedBackend.B));
        assertSameReply("vespa.searchprotocol.search", SearchProtocol.SearchRequest.newBuilder().setHits(10).build(), CompressionType.NONE, CompressionType.NONE);
        assertSameReply("vespa.searchprotocol.getDocsums", docsums.build(), CompressionType.LZ4, CompressionType.LZ4);
        assertSameReply("vespa.searchprotocol.ping", SearchProtocol.MonitorRequest.getDefaultInstance(), CompressionType.NONE, CompressionType.NONE);
        assertEquals(200, backend.lastDocsums.getGlobalIdsCount());
    }

    @Test
    void failuresAreErrors() throws Exception {
        backend.pingFailure = new IllegalStateException("node is down");
        assertEquals("Error response from in-process node connection to localhost:" + server.port() + ": node is down",
                     error("vespa.searchprotocol.ping", SearchProtocol.MonitorRequest.getDefaultInstance().toByteArray()));
        String malformed = error("vespa.searchprotocol.search", new byte[] { (byte) 0xff, (byte) 0xff, (byte) 0xff });
        assertTrue(malformed.contains(": Malformed vespa.searchprotocol.search request: "), malformed);
        assertTrue(error("vespa.searchprotocol.nosuch", new byte[0]).endsWith(": No such method: vespa.searchprotocol.nosuch"));

        Client.NodeConnection nowhere = new RpcClient("dispatch-client", 1).createConnection("localhost", server.port() + 1);
        assertEquals("Error response from in-process node connection to localhost:" + (server.port() + 1) + ": Connection error",
                     receive(nowhere, "vespa.searchprotocol.ping", new byte[0]).error().get());
        ProtonRpcServer closed = new ProtonRpcServer(new FixedBackend(), "localhost", 0, 1);
        Client.NodeConnection toClosed = new RpcClient("dispatch-client", 1).createConnection("localhost", closed.port());
        assertTrue(receive(toClosed, "vespa.searchprotocol.ping", new byte[0]).response().isPresent());
        closed.close();
        assertTrue(receive(toClosed, "vespa.searchprotocol.ping", new byte[0]).error().orElseThrow().endsWith(": Connection error"), "a closed node is gone");
    }

    private void assertSameReply(String method, MessageLite message, CompressionType requestCompression, CompressionType replyCompression) throws Exception {
        byte[] payload = message.toByteArray();
        Compressor.Compression compressed = compressor.compress(requestCompression, payload);
        Request request = new Request(method);
        request.parameters().add(new Int8Value(compressed.type().getCode()));
        request.parameters().add(new Int32Value(payload.length));
        request.parameters().add(new DataValue(compressed.data()));
        target.invokeSync(request, 5);
        assertTrue( ! request.isError(), request.errorMessage());

        CompletableFuture<Client.ResponseOrError<Client.ProtobufResponse>> inProcess = new CompletableFuture<>();
        connection.request(method, compressed.type(), payload.length, compressed.data(), inProcess::complete, 5);
        Client.ProtobufResponse response = inProcess.get(5, TimeUnit.SECONDS).response().orElseThrow();
        assertEquals(replyCompression.getCode(), response.compression(), method);
        assertEquals(request.returnValues().get(0).asInt8(), response.compression(), method);
        assertEquals(request.returnValues().get(1).asInt32(), response.uncompressedSize(), method);
        assertArrayEquals(request.returnValues().get(2).asData(), response.compressedPayload(), method);
    }

    private String error(String method, byte[] payload) throws Exception {
        return receive(connection, method, payload).error().orElseThrow();
    }

    private static Client.ResponseOrError<Client.ProtobufResponse> receive(Client.NodeConnection connection, String method, byte[] payload) throws Exception {
        CompletableFuture<Client.ResponseOrError<Client.ProtobufResponse>> received = new CompletableFuture<>();
        connection.request(method, CompressionType.NONE, payload.length, payload, received::complete, 5);
        return received.get(5, TimeUnit.SECONDS);
    }

}
