package ai.dwell.runtime.serve.state;

import com.yahoo.vdslib.distribution.Group;
import com.yahoo.vdslib.state.ClusterState;
import com.yahoo.vdslib.state.Node;
import com.yahoo.vdslib.state.NodeType;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A cluster controller's status pages for people (/clustercontroller-status/v1), the pages Vespa's controller renders
 * in HTML: the list of content clusters, and for each its master state, its published cluster state per bucket space,
 * and a table of its distributor and storage nodes with their reported, wanted and generated states, group and
 * (storage) documents. The figures are those of the cluster state REST API ({@link ClusterStates}); the layout is the
 * runtime's own. The runtime holds no election: its controllers are one process, so the master is the lowest index, as
 * on a Vespa whose controllers are all up.
 */
public final class ClusterStatusPages {

    static final String PREFIX = "/clustercontroller-status/v1";

    /** A page: its HTTP status and HTML. */
    public record Page(int status, String html) {}

    private final Supplier<Map<String, ClusterStates.Cluster>> clusters;
    private final int controller;
    private final int controllers;

    /**
     * @param clusters    the content clusters served now, by name
     * @param controller  the index of the controller whose pages these are
     * @param controllers how many controllers the model has
     */
    public ClusterStatusPages(Supplier<Map<String, ClusterStates.Cluster>> clusters, int controller, int controllers) {
        this.clusters = clusters;
        this.controller = controller;
        this.controllers = controllers;
    }

    /** The page at this path (starting with /clustercontroller-status/v1). */
    public Page page(String path) {
        List<String> units = List.of(path.substring(PREFIX.length()).split("/")).stream().filter(unit -> ! unit.isEmpty()).toList();
        Map<String, ClusterStates.Cluster> served = clusters.get();
        if (units.isEmpty()) return new Page(200, clusterList(served));
        ClusterStates.Cluster cluster = served.get(units.get(0));
        if (cluster == null || units.size() > 1)
            return new Page(404, document("Not found", "<p>No such page: " + escape(path) + "</p>\n"));
        return new Page(200, clusterPage(units.get(0), cluster));
    }

    private String clusterList(Map<String, ClusterStates.Cluster> served) {
        StringBuilder body = new StringBuilder("<h1>Content clusters</h1>\n<ul>\n");
        served.keySet().forEach(name -> body.append("<li><a href=\"").append(PREFIX).append('/').append(escape(name)).append("\">")
                                            .append(escape(name)).append("</a></li>\n"));
        return document("Cluster controller status page", body.append("</ul>\n").toString());
    }

    private String clusterPage(String name, ClusterStates.Cluster cluster) {
        ClusterState state = cluster.state();
        StringBuilder body = new StringBuilder();
        body.append("<h1>Cluster controller status page - ").append(escape(name)).append("</h1>\n");
        body.append("<h2>Master state</h2>\n<p>")
            .append(controller == 0 ? "This cluster controller (index 0) is the master"
                                    : "This cluster controller (index " + controller + ") is not the master; the master is cluster controller 0")
            .append(", of ").append(controllers).append(" controllers. dwell's local runtime holds no election: its controllers are one ")
            .append("process, and the master is the lowest index, as on a Vespa whose controllers are all up.</p>\n");
        body.append("<h2>Cluster states</h2>\n<table border=\"1\">\n<tr><th>Version</th><th>Bucket space</th><th>State</th></tr>\n");
        for (String space : List.of("baseline", "default", "global"))
            body.append("<tr><td>").append(state.getVersion()).append("</td><td>").append(space).append("</td><td>")
                .append(escape(state.toString())).append("</td></tr>\n");
        body.append("</table>\n<h2>Nodes</h2>\n<table border=\"1\">\n")
            .append("<tr><th>Type</th><th>Index</th><th>Group</th><th>Reported</th><th>Wanted</th><th>Generated</th><th>Documents</th></tr>\n");
        for (NodeType type : List.of(NodeType.DISTRIBUTOR, NodeType.STORAGE))
            for (int key : cluster.keys()) {
                String generated = state.getNodeState(new Node(type, key)).getState().toString().trim().toLowerCase(java.util.Locale.ROOT);
                Group group = cluster.distribution().getRootGroup().getGroupForNode(key);
                OptionalLong documents = type == NodeType.STORAGE ? cluster.documents().apply(key) : OptionalLong.empty();
                body.append("<tr><td>").append(type).append("</td><td>").append(key).append("</td><td>")
                    .append(escape(group == null ? "" : group.getPath())).append("</td><td>up</td><td>up</td><td>")
                    .append(escape(generated)).append("</td><td>")
                    .append(documents.isPresent() ? Long.toString(documents.getAsLong()) : "").append("</td></tr>\n");
            }
        body.append("</table>\n");
        return document("Cluster controller status page - " + name, body.toString());
    }

    private static String document(String title, String body) {
        return "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>" + escape(title) + "</title></head>\n<body>\n" +
               body + "</body>\n</html>\n";
    }

    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '&' -> escaped.append("&amp;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&#39;");
                default -> escaped.append(c);
            }
        }
        return escaped.toString();
    }

}
