package ai.dwell.runtime.serve.rpc;

import ai.dwell.runtime.engine.SearchBackend;
import ai.dwell.runtime.format.BixCodec;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.InvalidProtocolBufferException;
import com.yahoo.jrt.Acceptor;
import com.yahoo.jrt.ErrorCode;
import com.yahoo.jrt.ListenFailedException;
import com.yahoo.jrt.Method;
import com.yahoo.jrt.MethodHandler;
import com.yahoo.jrt.Request;
import com.yahoo.jrt.Spec;
import com.yahoo.jrt.Supervisor;
import com.yahoo.jrt.Transport;
import com.yahoo.yolean.Exceptions;

import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * The server side of proton's search RPC protocol, so that the container's Dispatcher talks to a
 * {@link SearchBackend} as it would to a content node.
 *
 * <p>Listens with jrt on the given host and port and serves {@code vespa.searchprotocol.ping},
 * {@code vespa.searchprotocol.search} and {@code vespa.searchprotocol.getDocsums}. Each request and reply is
 * "bix": compression type, uncompressed size and protobuf payload. Searches are detached from the jrt transport
 * thread and served by worker threads, pings on a thread of their own, so that a slow search does not block
 * pings; summary requests, which are short, are served on the transport thread (a hand-off to a worker and back
 * cost more context switches than the summaries of a view). Search replies are sent uncompressed unless they carry
 * grouping, other replies compressed with LZ4 where that pays off, as proton does.
 *
 * <p>A search or docsum request which makes the backend throw, an Error as well as an exception, gets a reply with
 * its message in its errors; a ping which does, or a request which cannot be decoded, gets an RPC error, as from
 * proton. A worker thread is never left without answering its request.
 *
 * <p>The container of the same JVM reaches it without the network ({@link #serveInProcess}, found by host name and port in
 * {@link InProcessNodes}): the same requests and replies, bytes for bytes, on the same threads, without the sockets,
 * jrt's framing and the transport threads' wake-ups on both sides.
 */
public final class ProtonRpcServer implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ProtonRpcServer.class.getName());

    private final SearchBackend backend;
    private final BixCodec codec = new BixCodec();
    private final ExecutorService searchWorkers;
    private final ExecutorService pingWorker;
    private final Supervisor supervisor;
    private final Acceptor acceptor;
    private final String host; // as given: the name the dispatcher's configuration has for this node

    /** Listens on the given host and port (0 for any free port), with a worker per available processor. */
    public ProtonRpcServer(SearchBackend backend, String host, int port) {
        this(backend, host, port, Runtime.getRuntime().availableProcessors());
    }

    /** Listens on the given host and port (0 for any free port), serving searches and summaries with the given number of threads. */
    public ProtonRpcServer(SearchBackend backend, String host, int port, int searchThreads) {
        this.backend = backend;
        this.host = host;
        this.searchWorkers = Executors.newFixedThreadPool(searchThreads, daemonThreads("proton-rpc-search"));
        this.pingWorker = Executors.newSingleThreadExecutor(daemonThreads("proton-rpc-ping"));
        this.supervisor = new Supervisor(new Transport("proton-rpc"));
        supervisor.addMethod(method("vespa.searchprotocol.ping", "ping this back-end", this::ping));
        supervisor.addMethod(method("vespa.searchprotocol.search", "perform a search against this back-end", this::search));
        supervisor.addMethod(method("vespa.searchprotocol.getDocsums", "fetch document summaries from this back-end", this::getDocsums));
        try {
            this.acceptor = supervisor.listen(new Spec(host, port));
        } catch (ListenFailedException e) {
            close();
            throw new IllegalStateException("Could not listen for search RPC on " + host + ":" + port, e);
        }
        InProcessNodes.register(host, acceptor.port(), this);
    }

    /** Returns the port this listens on. */
    public int port() { return acceptor.port(); }

    private void ping(Request request) { serve(request, pingWorker, this::pingReply); }

    private void search(Request request) { serve(request, searchWorkers, this::searchReply); }

    /** Served on the transport thread: a summary request is short, and a hand-off to a worker and back costs more than it. */
    private void getDocsums(Request request) { handle(request, this::docsumReply); }

    private BixCodec.Encoded pingReply(byte[] payload) throws IOException {
        return codec.encode(backend.ping(SearchProtocol.MonitorRequest.parseFrom(payload)), true);
    }

    private BixCodec.Encoded searchReply(byte[] payload) throws IOException {
        SearchProtocol.SearchReply reply = searchReply(SearchProtocol.SearchRequest.parseFrom(payload));
        return codec.encode(reply, ! reply.getGroupingBlob().isEmpty());
    }

    private BixCodec.Encoded docsumReply(byte[] payload) throws IOException {
        return codec.encode(docsumReply(SearchProtocol.DocsumRequest.parseFrom(payload)), true);
    }

    /** Where a request served in process is answered: exactly once, with a reply or an error (as jrt's). */
    public interface InProcessReceiver {
        void reply(BixCodec.Encoded reply);
        void error(String message);
    }

    /**
     * Serves a request of the container in this JVM, given as the bix values it would have sent: searches and pings
     * on their workers, summaries on the calling thread (where jrt's transport thread serves them). The receiver is
     * answered once, perhaps before this returns.
     */
    public void serveInProcess(String method, byte compression, int uncompressedSize, byte[] payload, InProcessReceiver receiver) {
        Handler handler = switch (method) {
            case "vespa.searchprotocol.search" -> this::searchReply;
            case "vespa.searchprotocol.getDocsums" -> this::docsumReply;
            case "vespa.searchprotocol.ping" -> this::pingReply;
            default -> null;
        };
        if (handler == null) {
            receiver.error("No such method: " + method);
            return;
        }
        Runnable task = () -> {
            BixCodec.Encoded reply;
            try {
                reply = handler.handle(codec.decode(compression, uncompressedSize, payload));
            } catch (InvalidProtocolBufferException e) {
                receiver.error("Malformed " + method + " request: " + e.getMessage());
                return;
            } catch (Exception | Error e) {
                logFailure("Serving " + method, e);
                receiver.error(Exceptions.toMessageString(e));
                return;
            }
            receiver.reply(reply);
        };
        if (method.equals("vespa.searchprotocol.getDocsums")) {
            task.run();
            return;
        }
        try {
            (method.equals("vespa.searchprotocol.ping") ? pingWorker : searchWorkers).execute(task);
        } catch (RejectedExecutionException e) {
            receiver.error("Server not online");
        }
    }

    private SearchProtocol.SearchReply searchReply(SearchProtocol.SearchRequest request) {
        try {
            return backend.search(request);
        } catch (RuntimeException | Error e) { // an Error too (a stack overflow in a deep query, a broken assertion): the request is answered
            logFailure("Search", e);
            return SearchReplies.error(Exceptions.toMessageString(e));
        }
    }

    /** Returns the backend's reply, where one without summaries gets an empty docsums array, as the container cannot decode nothing. */
    private SearchProtocol.DocsumReply docsumReply(SearchProtocol.DocsumRequest request) {
        SearchProtocol.DocsumReply reply;
        try {
            reply = backend.getDocsums(request);
        } catch (RuntimeException | Error e) {
            logFailure("Getting summaries", e);
            reply = SearchProtocol.DocsumReply.newBuilder()
                                              .addErrors(SearchProtocol.Error.newBuilder().setMessage(Exceptions.toMessageString(e)))
                                              .build();
        }
        if ( ! reply.getSlimeSummaries().isEmpty()) return reply;
        return reply.toBuilder().setSlimeSummaries(new DocsumSlime().toByteString()).build();
    }

    /** Logs a failed request: an Error with its stack, as something is wrong with the node rather than with the request. */
    private static void logFailure(String what, Throwable e) {
        if (e instanceof Error) log.log(java.util.logging.Level.SEVERE, what + " failed", e);
        else log.warning(what + " failed: " + Exceptions.toMessageString(e));
    }

    /** Detaches the request from the transport thread, and decodes, handles and returns it on the given executor. */
    private void serve(Request request, ExecutorService executor, Handler handler) {
        request.detach();
        try {
            executor.execute(() -> {
                try { handle(request, handler); }
                finally { request.returnRequest(); }
            });
        } catch (RejectedExecutionException e) {
            request.setError(ErrorCode.METHOD_FAILED, "Server not online");
            request.returnRequest();
        }
    }

    /** Decodes and handles the request, setting an RPC error if it cannot; jrt returns it when the method returns, unless it was detached. */
    private void handle(Request request, Handler handler) {
        try {
            BixCodec.add(handler.handle(codec.decode(request.parameters())), request.returnValues());
        } catch (InvalidProtocolBufferException e) {
            request.setError(ErrorCode.METHOD_FAILED, "Malformed " + request.methodName() + " request: " + e.getMessage());
        } catch (Exception | Error e) {
            logFailure("Serving " + request.methodName(), e);
            request.setError(ErrorCode.METHOD_FAILED, Exceptions.toMessageString(e));
        }
    }

    /** Stops listening, waits briefly for requests in progress, and stops the workers. */
    @Override
    public void close() {
        if (acceptor != null) {
            InProcessNodes.unregister(host, acceptor.port(), this);
            acceptor.shutdown().join();
        }
        searchWorkers.shutdown();
        pingWorker.shutdown();
        try {
            searchWorkers.awaitTermination(5, TimeUnit.SECONDS);
            pingWorker.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        supervisor.transport().shutdown().join();
    }

    private static Method method(String name, String description, MethodHandler handler) {
        return new Method(name, BixCodec.TYPES, BixCodec.TYPES, handler)
                .methodDesc(description)
                .paramDesc(0, "encoding", "0=raw, 6=lz4, 7=zstd")
                .paramDesc(1, "uncompressed_size", "uncompressed size of serialized request")
                .paramDesc(2, "request", "possibly compressed serialized request")
                .returnDesc(0, "encoding", "0=raw, 6=lz4, 7=zstd")
                .returnDesc(1, "uncompressed_size", "uncompressed size of serialized reply")
                .returnDesc(2, "reply", "possibly compressed serialized reply");
    }

    private static ThreadFactory daemonThreads(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Handles one decoded request payload, returning the encoded reply. */
    @FunctionalInterface
    private interface Handler {
        BixCodec.Encoded handle(byte[] payload) throws IOException;
    }

}
