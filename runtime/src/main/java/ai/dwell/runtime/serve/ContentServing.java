package ai.dwell.runtime.serve;

import ai.dwell.runtime.index.ClusterSelection;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.engine.SearchThreads;
import ai.dwell.runtime.serve.deploy.PackageServices;
import ai.dwell.runtime.serve.feed.IndexedContent;
import ai.dwell.runtime.serve.rpc.ProtonRpcServer;
import ai.dwell.runtime.serve.state.ClusterControllers;
import ai.dwell.runtime.serve.state.NodeStateApi;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.GlobalId;
import com.yahoo.vespa.config.search.DispatchNodesConfig;
import com.yahoo.vespa.model.VespaModel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import java.nio.file.Path;

/**
 * The content nodes of a package, each one a shard of the engine behind proton's RPC protocol,
 * listening where the package's model says that node is. Documents of global types go to every
 * node; the others to as many nodes as the cluster's redundancy says, chosen by their global id, as buckets spread
 * them in Vespa (ContentClusterConfig#holders): each node holds its copy as active, ready or not ready, so that a
 * query finds each document once, on the node whose copy is active.
 */
public class ContentServing implements IndexedContent, AutoCloseable {

    private static final Logger log = Logger.getLogger(ContentServing.class.getName());

    private static final long PING_MARGIN_MILLIS = 100;

    private record Node(String cluster, ContentNode engine, ReadinessGate gate, ProtonRpcServer server, NodeStateApi state) {}

    private final List<Node> nodes = new ArrayList<>();
    private final SearchThreads searchThreads = SearchThreads.fromEnvironment();
    private final Map<String, ContentClusterConfig> clusters;
    private IndexFlusher flusher;
    private ClusterControllers controllers;

    public ContentServing(VespaModel model, PackageServices services, Map<String, ContentClusterConfig> clusters) {
        this.clusters = clusters;
        try {
            for (String cluster : clusters.keySet()) {
                DispatchNodesConfig dispatch = model.getConfig(DispatchNodesConfig.class,
                                                               services.searchCluster() + "/component/dispatcher." + cluster);
                for (DispatchNodesConfig.Node spec : dispatch.node()) {
                    ContentNode engine = new ContentNode(clusters.get(cluster), spec.key(), searchThreads, true);
                    ReadinessGate gate = new ReadinessGate(engine);
                    ProtonRpcServer server = new ProtonRpcServer(gate, spec.host(), spec.port());
                    NodeStateApi state;
                    try {
                        state = new NodeStateApi(spec.host(), healthPort(model, cluster, spec.key()), engine, gate::isReady);
                    }
                    catch (RuntimeException e) {
                        server.close();
                        throw e;
                    }
                    nodes.add(new Node(cluster, engine, gate, server, state));
                    log.info("Content node " + spec.key() + " of '" + cluster + "' listening on " + spec.host() + ":" + spec.port()
                             + " (state API on port " + state.port() + "), threads per search: " + searchThreads.policy());
                }
            }
            controllers = new ClusterControllers(model, this::documentsOf);
        }
        catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The port of the state API the model gives the search node of this cluster and distribution key (proton's health port). */
    private static int healthPort(VespaModel model, String cluster, int distributionKey) {
        return model.getContentClusters().get(cluster).getSearch().getSearchNodes().stream()
                    .filter(node -> node.getDistributionKey() == distributionKey)
                    .findFirst().orElseThrow(() -> new IllegalStateException("No search node " + distributionKey + " in content cluster '" + cluster + "'"))
                    .getHealthPort();
    }

    /** The documents the node of this cluster and distribution key holds (all its copies), empty if there is no such node. */
    private java.util.OptionalLong documentsOf(String cluster, int distributionKey) {
        return nodes.stream().filter(node -> node.cluster().equals(cluster) && node.engine().distributionKey() == distributionKey)
                    .mapToLong(node -> node.engine().documentCounts().values().stream().mapToLong(ContentNode.DocumentCounts::total).sum())
                    .reduce(Long::sum);
    }

    /** The content nodes of the named cluster. */
    public List<ContentNode> nodesOf(String cluster) {
        return nodes.stream().filter(node -> node.cluster().equals(cluster)).map(Node::engine).toList();
    }

    /** Gives each content node, with the name of its cluster, to the consumer. */
    public void forEachNode(java.util.function.BiConsumer<String, ContentNode> consumer) {
        for (Node node : nodes) consumer.accept(node.cluster(), node.engine());
    }

    /**
     * Makes the nodes keep their index state under the directory (one directory per cluster and node) and loads
     * what is there, the nodes in parallel; what is not loaded is indexed when the store is subscribed to.
     *
     * @param indexing per document type, what besides its schema decides its index content (see ContentNode#keepStateIn)
     */
    public void loadState(Path directory, Map<String, String> indexing) {
        long start = System.nanoTime();
        for (Node node : nodes)
            node.engine().keepStateIn(directory.resolve(node.cluster()).resolve(Integer.toString(node.engine().distributionKey())), indexing);
        nodes.parallelStream().forEach(node -> node.engine().loadState());
        long documents = nodes.stream().mapToLong(node -> node.engine().activeDocuments()).sum();
        log.info("Loaded index state of " + nodes.size() + " content nodes: " + documents + " documents in " +
                 (System.nanoTime() - start) / 1_000_000 + " ms");
    }

    /** Starts flushing the nodes' index state in the background (see IndexFlusher); closing flushes once more. */
    public void startFlushing() {
        if (flusher == null) flusher = IndexFlusher.fromEnvironment(nodes.stream().map(Node::engine).toList());
    }

    /** Marks every node as holding all its documents: pings answer online from now on. */
    public void setReady() {
        if (nodes.stream().anyMatch(node -> ! node.gate().isReady()))
            log.info("Content nodes ready: " + nodes.stream().mapToLong(node -> node.engine().activeDocuments()).sum() + " documents");
        nodes.forEach(node -> node.gate().setReady());
    }

    /**
     * Marks every node as holding all its documents, then waits until the container's dispatcher
     * has seen each online, so that queries reach them all. Until then the nodes answer pings as
     * offline. Returns whether the dispatcher saw them all within the timeout.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        setReady();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (nodes.stream().anyMatch(node -> ! node.gate().seenReady())) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(20);
        }
        Thread.sleep(PING_MARGIN_MILLIS); // for the dispatcher to take the answers into use
        return true;
    }

    /**
     * Stores a document, processed by its indexing statements, on the node(s) holding it: in each cluster of its type
     * whose selection accepts it. A cluster whose selection no longer accepts the new version drops the one it held
     * (Vespa routes the put past that cluster and leaves its older copy there until garbage collection removes it; the
     * runtime's one store keeps one version of a document, so a cluster holds what its selection accepts of the store).
     * A copy that holds this very version (the store's timestamp) is not written again.
     */
    @Override
    public void put(Document document, long timestamp) {
        for (Node node : nodesOf(document.getId())) {
            if ( ! selectionOf(node).accepts(document)) node.engine().remove(document.getId());
            else if ( ! node.engine().verify(document.getId(), timestamp)) node.engine().put(document, timestamp);
            // else: a catch-up's put of a version this copy already holds (another copy was stale): left as it is, so that
            // a copy loaded from the flushed state is not indexed again (which would reorder its nearest-neighbor graph)
        }
    }

    /**
     * Applies an update (processed by the indexing statements of the fields it touches) to the documents the nodes
     * hold; false if a node that should hold the document has none, so the update was not applied there. In a
     * cluster with a selection, where the document belongs is decided on the updated document, as for a put.
     */
    @Override
    public boolean update(DocumentUpdate update, Document updated, long timestamp) {
        boolean applied = true;
        for (Node node : nodesOf(update.getId())) {
            if (selectionOf(node).accepts(updated)) applied &= node.engine().applyUpdate(update, timestamp);
            else node.engine().remove(update.getId());
        }
        return applied;
    }

    /**
     * Whether every node that holds the document holds this version: each node of a cluster without a selection, and
     * in the clusters with one, each node of one of them (which of them should is decided by the document's content,
     * not read here). Verifying on every node, as each keeps what it verified.
     */
    @Override
    public boolean isCurrent(DocumentId id, long timestamp) {
        boolean current = true;
        Map<String, Boolean> selectedCurrent = new java.util.HashMap<>(); // per cluster with a selection: every copy there verified
        for (Node node : nodesOf(id)) {
            boolean verified = node.engine().verify(id, timestamp);
            if (selectionOf(node).isSelective()) selectedCurrent.merge(node.cluster(), verified, Boolean::logicalAnd);
            else current &= verified;
        }
        return current && (selectedCurrent.isEmpty() || selectedCurrent.containsValue(true));
    }

    @Override
    public void beginCatchUp() { nodes.forEach(node -> node.engine().beginCatchUp()); }

    @Override
    public void endCatchUp() {
        int removed = 0;
        for (Node node : nodes) removed += node.engine().endCatchUp();
        if (removed > 0) log.info("Removed " + removed + " documents the store no longer has from the loaded index state");
    }

    @Override
    public void remove(DocumentId id) {
        for (Node node : nodesOf(id)) node.engine().remove(id);
    }

    private ClusterSelection selectionOf(Node node) { return clusters.get(node.cluster()).selection(); }

    /** The nodes holding a copy of the document in each cluster with its type: every node for a global type, else its bucket's replicas. */
    private List<Node> nodesOf(DocumentId id) {
        String type = id.getDocType();
        GlobalId gid = new GlobalId(id.getGlobalId());
        List<Node> holding = new ArrayList<>();
        for (Node node : nodes) {
            ContentClusterConfig cluster = clusters.get(node.cluster());
            if (cluster.schemas().containsKey(type) && cluster.copy(type, gid, node.engine().distributionKey()) != ContentClusterConfig.Copy.NONE)
                holding.add(node);
        }
        return holding;
    }

    @Override
    public void close() {
        if (controllers != null) controllers.close();
        controllers = null;
        if (flusher != null) flusher.close(); // a clean stop (or a redeploy) writes the state the next start loads
        flusher = null;
        for (Node node : nodes) {
            node.state().close();
            node.server().close();
            node.engine().close();
        }
        nodes.clear();
        searchThreads.close();
    }

}
