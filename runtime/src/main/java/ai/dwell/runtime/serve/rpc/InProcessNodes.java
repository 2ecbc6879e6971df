package ai.dwell.runtime.serve.rpc;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The content nodes listening in this JVM, by the host name and port each was given (as the dispatcher's
 * configuration names them: the nodes of a package with several hosts share a port on hosts of their own): where the
 * container's dispatch client (the runtime's {@code com.yahoo.search.dispatch.rpc.RpcClient}) finds the node a
 * connection names, to serve its requests without the network. A node is here from when it listens until it is closed.
 */
public final class InProcessNodes {

    private static final Map<String, ProtonRpcServer> nodes = new ConcurrentHashMap<>();

    private InProcessNodes() {}

    static void register(String host, int port, ProtonRpcServer server) { nodes.put(key(host, port), server); }

    static void unregister(String host, int port, ProtonRpcServer server) { nodes.remove(key(host, port), server); }

    /** The node given this host name and listening on this port in this JVM, if any. */
    public static Optional<ProtonRpcServer> listeningOn(String host, int port) { return Optional.ofNullable(nodes.get(key(host, port))); }

    private static String key(String host, int port) { return host + ":" + port; }

}
