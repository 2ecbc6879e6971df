package ai.dwell.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Requests over a fixed set of kept-alive HTTP/1.1 connections, all driven by one selector thread, so
 * that generating load costs the machine little: the JDK's HttpClient costs about 0.9 ms of CPU per
 * request on these machines (at 1,400 requests/s it took more CPU than the server it measured),
 * this about a tenth of that. The connections are opened before any request is sent, as a pool of
 * real clients would have them, so a surge measures the server and not connection setup. A request
 * due while every connection is busy waits for one, first come first served. Each outcome is the
 * HTTP status (-1: no answer within the timeout, or the connection failed), the response (with its
 * body if asked for) and the time the answer was read, right after the selector saw it.
 */
final class SelectorHttpClient implements AutoCloseable {

    /** Called on the selector thread when a request is answered (with its response) or failed (status -1, no response). */
    interface Completion {
        void completed(int index, int status, ResponseReader.Response response, long doneNanos);
    }

    private record Request(int index, ByteBuffer bytes) {}

    private final class Connection {
        SocketChannel channel;
        SelectionKey key;
        ResponseReader reader;
        Request current;
        long sentNanos;

        void open(boolean blocking) throws IOException {
            channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            reader = new ResponseReader(keepBodies);
            current = null;
            if (blocking) {
                channel.connect(address);
                channel.configureBlocking(false);
                key = channel.register(selector, SelectionKey.OP_READ, this);
            }
            else {
                channel.configureBlocking(false);
                boolean connected = channel.connect(address);
                key = channel.register(selector, connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, this);
                if (connected) idle.add(this);
            }
        }

        void reopen() {
            try {
                key.cancel();
                channel.close();
                open(false);
            }
            catch (IOException e) {
                throw new UncheckedIOException("Could not reconnect to " + address, e);
            }
        }
    }

    private final InetSocketAddress address;
    private final String host;
    private final long timeoutNanos;
    private final Completion completion;
    private final boolean keepBodies;
    private final Selector selector;
    private final List<Connection> connections = new ArrayList<>();
    private final ArrayDeque<Connection> idle = new ArrayDeque<>();
    private final ArrayDeque<Request> waiting = new ArrayDeque<>();
    private final ConcurrentLinkedQueue<Request> submitted = new ConcurrentLinkedQueue<>();
    private final ByteBuffer in = ByteBuffer.allocateDirect(1 << 16);
    private final Thread loop;
    private volatile boolean closed;

    SelectorHttpClient(String host, int port, int connections, long timeoutNanos, boolean keepBodies,
                       Completion completion) throws IOException {
        this.address = new InetSocketAddress(host, port);
        this.host = host + ":" + port;
        this.timeoutNanos = timeoutNanos;
        this.keepBodies = keepBodies;
        this.completion = completion;
        this.selector = Selector.open();
        for (int i = 0; i < connections; i++) {
            Connection connection = new Connection();
            connection.open(true);
            this.connections.add(connection);
            idle.add(connection);
        }
        this.loop = new Thread(this::run, "selector-http-client");
        loop.setDaemon(true);
        loop.start();
    }

    /** Sends a GET of this path as soon as a connection is free; any thread may call it. */
    void get(int index, String path) {
        send(index, request(path, List.of(), null));
    }

    /** Sends these request bytes (see {@link #request}) as soon as a connection is free; any thread may call it. */
    void send(int index, byte[] request) {
        submitted.add(new Request(index, ByteBuffer.wrap(request)));
        selector.wakeup();
    }

    /** The bytes of a GET of this path, or a POST of this JSON body, with these extra "Name: value" headers. */
    byte[] request(String path, List<String> headers, String body) {
        StringBuilder head = new StringBuilder(body == null ? "GET " : "POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
        for (String header : headers) head.append(header.strip()).append("\r\n");
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) head.append("Content-Type: application/json\r\nContent-Length: ").append(content.length).append("\r\n");
        byte[] start = head.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
        byte[] bytes = java.util.Arrays.copyOf(start, start.length + content.length);
        System.arraycopy(content, 0, bytes, start.length, content.length);
        return bytes;
    }

    private void run() {
        long nextTimeoutCheck = System.nanoTime();
        try {
            while ( ! closed) {
                selector.select(10);
                long now = System.nanoTime();
                for (SelectionKey key : selector.selectedKeys()) {
                    Connection connection = (Connection) key.attachment();
                    if (key.isValid() && key.isConnectable()) connected(connection);
                    if (key.isValid() && key.isReadable()) read(connection, now);
                    if (key.isValid() && key.isWritable()) write(connection);
                }
                selector.selectedKeys().clear();
                for (Request request; (request = submitted.poll()) != null; ) waiting.add(request);
                while ( ! waiting.isEmpty() && ! idle.isEmpty()) send(idle.poll(), waiting.poll());
                if (now >= nextTimeoutCheck) {
                    timeOut(now);
                    nextTimeoutCheck = now + 10_000_000;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void connected(Connection connection) {
        try {
            if (connection.channel.finishConnect()) {
                connection.key.interestOps(SelectionKey.OP_READ);
                idle.add(connection);
            }
        }
        catch (IOException e) {
            connection.reopen();
        }
    }

    private void send(Connection connection, Request request) {
        connection.current = request;
        connection.sentNanos = System.nanoTime();
        write(connection);
    }

    private void write(Connection connection) {
        try {
            connection.channel.write(connection.current.bytes());
            connection.key.interestOps(connection.current.bytes().hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
                                                                                 : SelectionKey.OP_READ);
        }
        catch (IOException e) {
            fail(connection, System.nanoTime());
        }
    }

    private void read(Connection connection, long now) {
        in.clear();
        int read;
        try {
            read = connection.channel.read(in);
        }
        catch (IOException e) {
            read = -1;
        }
        if (read < 0) {
            fail(connection, now);
            return;
        }
        in.flip();
        ResponseReader.Response response = connection.reader.read(in);
        if (response == null || connection.current == null) return;
        completion.completed(connection.current.index(), response.status(), response, now);
        connection.current = null;
        if (response.closes()) connection.reopen();
        else idle.add(connection);
    }

    /** The connection's request, if any, failed; the connection is replaced. */
    private void fail(Connection connection, long now) {
        if (connection.current != null) completion.completed(connection.current.index(), -1, null, now);
        idle.remove(connection);
        connection.reopen();
    }

    private void timeOut(long now) {
        for (Connection connection : connections)
            if (connection.current != null && now - connection.sentNanos > timeoutNanos) fail(connection, now);
    }

    @Override
    public void close() throws IOException {
        closed = true;
        selector.wakeup();
        try {
            loop.join(1000);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Connection connection : connections) connection.channel.close();
        selector.close();
    }

}
