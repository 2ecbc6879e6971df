package ai.dwell.runtime.serve.container;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The containers of a package, one per container cluster, each Vespa's JDisc container with that cluster's
 * components, chains and handlers only, listening on its own port, as each cluster runs on hosts of its own on Vespa.
 *
 * Vespa's standalone container keeps what its application configured in a process-wide {@link com.yahoo.container.Container}
 * (handlers, components, the file acquirer), which each JDisc takes when it is made; a second is made after that
 * instance is replaced by a fresh one, so each container holds its own. Its configs are static (nothing subscribes
 * again), so nothing reads that instance after start.
 */
public final class ContainerHosts implements AutoCloseable {

    private final Map<String, ContainerHost> hosts;

    private ContainerHosts(Map<String, ContainerHost> hosts) { this.hosts = hosts; }

    /** Starts a container for each cluster, in order, from its package directory; stops those started if one fails. */
    public static ContainerHosts start(Map<String, Path> packageOfCluster) {
        Map<String, ContainerHost> started = new LinkedHashMap<>();
        try {
            for (var cluster : packageOfCluster.entrySet()) {
                if ( ! started.isEmpty()) com.yahoo.container.Container.resetInstance();
                started.put(cluster.getKey(), ContainerHost.start(cluster.getValue(), cluster.getKey()));
            }
            return new ContainerHosts(started);
        }
        catch (RuntimeException | LinkageError e) {
            new ContainerHosts(started).close();
            throw e;
        }
    }

    /** The container of this cluster. */
    public ContainerHost of(String clusterId) {
        ContainerHost host = hosts.get(clusterId);
        if (host == null) throw new IllegalArgumentException("No container cluster '" + clusterId + "' is served: " + hosts.keySet());
        return host;
    }

    @Override
    public void close() {
        List<ContainerHost> reversed = new ArrayList<>(hosts.values());
        java.util.Collections.reverse(reversed);
        RuntimeException failure = null;
        for (ContainerHost host : reversed) {
            try { host.close(); }
            catch (RuntimeException e) { if (failure == null) failure = e; else failure.addSuppressed(e); }
        }
        if (failure != null) throw failure;
    }

}
