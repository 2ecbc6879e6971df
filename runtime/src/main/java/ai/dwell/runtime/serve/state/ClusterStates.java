package ai.dwell.runtime.serve.state;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.yahoo.vdslib.distribution.ConfiguredNode;
import com.yahoo.vdslib.distribution.Distribution;
import com.yahoo.vdslib.state.ClusterState;
import com.yahoo.vdslib.state.Node;
import com.yahoo.vdslib.state.NodeState;
import com.yahoo.vdslib.state.NodeType;
import com.yahoo.vdslib.state.State;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The cluster state REST API (/cluster/v2) of the content clusters the runtime serves, in the JSON Vespa's cluster
 * controller answers: the clusters, each one's generated state and its two services (storage, distributor), each
 * service's nodes, and each node's generated, reported ("unit") and wanted ("user") states, its group and (storage)
 * its document count; links or, with {@code recursive}, the units themselves. The runtime's nodes are one process that
 * serves while it runs, so every configured node is up, in every state, and the cluster state (version 1, Vespa's own
 * ClusterState serializing it) never changes; a distribution key inside the range that is configured for no node is
 * down, as Vespa's cluster controller has it. States cannot be set: any other method than GET is answered 501.
 */
public final class ClusterStates {

    static final String PREFIX = "/cluster/v2";
    static final String CANNOT_SET = "Node states cannot be set in dwell's local runtime: its content nodes are one " +
                                     "process, always up (the cluster state REST API is served read-only)";

    private static final ObjectMapper json = new ObjectMapper();

    /** A content cluster: its distribution (nodes and groups, from the model's StorDistributionConfig), and each node's documents. */
    public record Cluster(Distribution distribution, IntFunction<OptionalLong> documents) {

        Set<Integer> keys() {
            Set<Integer> keys = new TreeSet<>();
            for (ConfiguredNode node : distribution.getNodes()) keys.add(node.index());
            return keys;
        }

        ClusterState state() {
            ClusterState state = ClusterState.emptyState();
            state.setVersion(1);
            state.setClusterState(State.UP);
            Set<Integer> keys = keys();
            int end = keys.isEmpty() ? 0 : ((TreeSet<Integer>) keys).last() + 1;
            for (NodeType type : NodeType.getTypes())
                for (int key = 0; key < end; key++)
                    state.setNodeState(new Node(type, key), new NodeState(type, keys.contains(key) ? State.UP : State.DOWN));
            return state;
        }

    }

    /** An answer: its HTTP status and JSON body. */
    public record Answer(int status, ObjectNode body) {}

    private final Supplier<Map<String, Cluster>> clusters;

    /** Answers of the clusters served now, asked for on each request (ordered by name). */
    public ClusterStates(Supplier<Map<String, Cluster>> clusters) { this.clusters = clusters; }

    /** The answer to a request of this method, path (starting with /cluster/v2) and recursive parameter (null where none). */
    public Answer answer(String method, String path, String recursive) {
        if ( ! "GET".equals(method)) return error(501, CANNOT_SET);
        int levels;
        if (recursive == null || recursive.equalsIgnoreCase("false")) levels = 0;
        else if (recursive.equalsIgnoreCase("true")) levels = Integer.MAX_VALUE;
        else {
            try {
                levels = Integer.parseInt(recursive);
                if (levels < 0) throw new NumberFormatException();
            }
            catch (NumberFormatException e) {
                return error(400, "Option 'recursive' have invalid value '" + recursive + "': Recursive option must be true, false, 0 or a positive integer");
            }
        }
        List<String> units = Arrays.asList(path.split("/"));
        units = units.subList(Math.min(3, units.size()), units.size());
        Map<String, Cluster> served = clusters.get();
        if (units.isEmpty()) return new Answer(200, clusterList(served, levels));
        Cluster cluster = served.get(units.get(0));
        if (cluster == null) return missing(units, 0);
        if (units.size() == 1) return new Answer(200, cluster(units.get(0), cluster, levels));
        NodeType type;
        try {
            type = NodeType.get(units.get(1));
        }
        catch (IllegalArgumentException e) {
            return missing(units, 1);
        }
        if (units.size() == 2) return new Answer(200, service(units.get(0), type, cluster, levels));
        int key;
        try {
            key = Integer.parseInt(units.get(2));
        }
        catch (NumberFormatException e) {
            return missing(units, 2);
        }
        if (units.size() > 3) return missing(units, units.size() - 1);
        if ( ! cluster.keys().contains(key)) return error(404, "No such resource 'node " + key + "'.");
        return new Answer(200, node(type, key, cluster));
    }

    private static ObjectNode clusterList(Map<String, Cluster> clusters, int levels) {
        ObjectNode root = json.createObjectNode();
        ObjectNode list = root.putObject("cluster");
        clusters.forEach((name, cluster) -> {
            if (levels > 0) list.set(name, cluster(name, cluster, levels - 1));
            else list.putObject(name).put("link", PREFIX + "/" + name);
        });
        return root;
    }

    private static ObjectNode cluster(String name, Cluster cluster, int levels) {
        ObjectNode root = json.createObjectNode();
        ClusterState state = cluster.state();
        state(root.putObject("state"), "generated", "");
        root.putObject("metrics").put("cluster-buckets-out-of-sync-ratio", 0.0); // one process: every copy is in sync
        ObjectNode services = root.putObject("service");
        for (NodeType type : NodeType.getTypes()) {
            if (levels > 0) services.set(type.toString(), service(name, type, cluster, levels - 1));
            else services.putObject(type.toString()).put("link", PREFIX + "/" + name + "/" + type);
        }
        ObjectNode published = root.putObject("distribution-states").putObject("published");
        published.put("baseline", state.toString());
        var spaces = published.putArray("bucket-spaces");
        for (String space : List.of("default", "global"))
            spaces.addObject().put("name", space).put("state", state.toString());
        return root;
    }

    private static ObjectNode service(String clusterName, NodeType type, Cluster cluster, int levels) {
        ObjectNode root = json.createObjectNode();
        ObjectNode nodes = root.putObject("node");
        for (int key : cluster.keys()) {
            if (levels > 0) nodes.set(Integer.toString(key), node(type, key, cluster));
            else nodes.putObject(Integer.toString(key)).put("link", PREFIX + "/" + clusterName + "/" + type + "/" + key);
        }
        return root;
    }

    private static ObjectNode node(NodeType type, int key, Cluster cluster) {
        ObjectNode root = json.createObjectNode();
        var group = cluster.distribution().getRootGroup().getGroupForNode(key);
        if (group != null) root.putObject("attributes").put("hierarchical-group", group.getPath());
        ObjectNode states = root.putObject("state");
        for (String kind : List.of("generated", "unit", "user")) state(states, kind, "");
        if (type == NodeType.STORAGE) {
            OptionalLong documents = cluster.documents().apply(key);
            if (documents.isPresent()) root.putObject("metrics").put("unique-document-count", documents.getAsLong());
        }
        return root;
    }

    private static void state(ObjectNode states, String kind, String reason) {
        states.putObject(kind).put("state", "up").put("reason", reason);
    }

    private static Answer missing(List<String> units, int level) {
        return error(404, "No such resource '" + String.join("/", units.subList(0, level + 1)) + "'.");
    }

    private static Answer error(int status, String message) {
        ObjectNode body = json.createObjectNode();
        body.put("message", message);
        return new Answer(status, body);
    }

}
