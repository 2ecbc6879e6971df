package ai.dwell.runtime.serve.state;

import com.yahoo.vdslib.distribution.Distribution;
import com.yahoo.vespa.config.content.StorDistributionConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.admin.clustercontroller.ClusterControllerContainer;
import com.yahoo.vespa.model.content.cluster.ContentCluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.logging.Logger;

/**
 * The cluster controllers of a model, each serving the cluster state REST API and the status pages of every content cluster (as each of
 * Vespa's controls them all) on the host and HTTP port the model gives it. Controllers whose hosts the runtime puts on
 * one address (service hosts share 127.0.0.1) share the first one's server, which answers as any of them would: on
 * Vespa only the master (the lowest index that is up) answers, the others redirect to it.
 */
public final class ClusterControllers implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ClusterControllers.class.getName());

    /** A cluster controller where the model puts it. */
    public record Controller(int index, String host, int port) {}

    private final List<ClusterStateApi> servers = new ArrayList<>();

    /**
     * Serves the model's content clusters on its cluster controllers' ports.
     *
     * @param documents the documents a content node holds, by cluster and distribution key (empty where not known)
     */
    public ClusterControllers(VespaModel model, BiFunction<String, Integer, OptionalLong> documents) {
        Map<String, ClusterStates.Cluster> clusters = clusters(model, documents);
        ClusterStates states = new ClusterStates(() -> clusters);
        Set<String> bound = new HashSet<>();
        try {
            List<Controller> controllers = controllers(model);
            for (Controller controller : controllers) {
                String address = address(controller.host()) + ":" + controller.port();
                if ( ! bound.add(address)) {
                    log.info("Cluster controller " + controller.index() + " (" + controller.host() + ":" + controller.port() +
                             ") answered by the one already on " + address);
                    continue;
                }
                ClusterStatusPages pages = new ClusterStatusPages(() -> clusters, controller.index(), controllers.size());
                ClusterStateApi server = new ClusterStateApi(controller.host(), controller.port(), states, pages);
                servers.add(server);
                log.info("Cluster controller " + controller.index() + " serving /cluster/v2 and /clustercontroller-status/v1 on " +
                         controller.host() + ":" + server.port());
            }
        }
        catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The address the host resolves to (the runtime's hosts file), or the name where it resolves to none. */
    private static String address(String host) {
        try {
            return java.net.InetAddress.getByName(host).getHostAddress();
        }
        catch (java.net.UnknownHostException e) {
            return host;
        }
    }

    /** The model's cluster controllers, by index: each one's host and HTTP port. */
    public static List<Controller> controllers(VespaModel model) {
        if (model.getAdmin() == null || model.getAdmin().getClusterControllers() == null) return List.of();
        List<Controller> controllers = new ArrayList<>();
        for (ClusterControllerContainer container : model.getAdmin().getClusterControllers().getContainers())
            controllers.add(new Controller(container.index(), container.getHostName(), container.getSearchPort()));
        controllers.sort(java.util.Comparator.comparingInt(Controller::index));
        return controllers;
    }

    /** The model's content clusters by name, each with Vespa's Distribution of its StorDistributionConfig. */
    public static Map<String, ClusterStates.Cluster> clusters(VespaModel model, BiFunction<String, Integer, OptionalLong> documents) {
        Map<String, ClusterStates.Cluster> clusters = new TreeMap<>();
        for (ContentCluster cluster : model.getContentClusters().values()) {
            StorDistributionConfig.Builder builder = new StorDistributionConfig.Builder();
            cluster.getConfig(builder);
            String name = cluster.getName();
            clusters.put(name, new ClusterStates.Cluster(new Distribution(new StorDistributionConfig(builder)),
                                                         key -> documents.apply(name, key)));
        }
        return clusters;
    }

    @Override
    public void close() {
        servers.forEach(ClusterStateApi::close);
        servers.clear();
    }

}
