package ai.dwell.runtime.serve.http;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/**
 * A small HTTP server of the JDK's on one address, answering on one daemon thread: what the runtime's state APIs and
 * metrics proxy serve on. Made unstarted, so the caller adds its contexts first.
 */
public final class LocalHttpServer {

    private LocalHttpServer() {}

    /**
     * @param what       what it serves, for the error when the address cannot be bound
     * @param threadName the name of its one thread
     */
    public static HttpServer create(String host, int port, String what, String threadName) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not serve " + what + " on " + host + ":" + port, e);
        }
        server.setExecutor(Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        }));
        return server;
    }

}
