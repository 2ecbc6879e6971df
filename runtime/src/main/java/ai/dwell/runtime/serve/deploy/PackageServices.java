package ai.dwell.runtime.serve.deploy;

import com.yahoo.component.ComponentId;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.container.ApplicationContainerCluster;
import com.yahoo.vespa.model.content.StorageNode;
import com.yahoo.vespa.model.content.cluster.ContentCluster;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the runtime needs to know about the services of a deployed package: its container
 * clusters with the port each is served on, the one that processes documents, its content clusters with their nodes,
 * and the docproc chains each document type is fed through. Read from Vespa's model of the package, and from
 * services.xml for the chains.
 *
 * @param containers          the container clusters, in services.xml's order, each with its port here
 * @param containerCluster    the container cluster whose document processing the content clusters' writes go through
 *                            (their {@code <document-processing cluster=...>}, else the one Vespa's model picks): its
 *                            docproc chains, linguistics and embedders index the documents
 */
public record PackageServices(List<ContainerSpec> containers, String containerCluster, List<ContentNodeSpec> contentNodes,
                              Map<String, List<String>> docprocChainsOfType, Set<String> serviceHosts) {

    /** One content node: its cluster, distribution key and host. */
    public record ContentNodeSpec(String cluster, int distributionKey, String host) {}

    /**
     * One container cluster as the runtime serves it: its own container, listening on this port of the machine.
     *
     * @param search      whether it has {@code <search>} (serves /search/)
     * @param documentApi whether it has {@code <document-api>} (serves /document/v1/)
     */
    public record ContainerSpec(String id, int port, boolean search, boolean documentApi, boolean documentProcessing) {

        /** What it serves, as the deploy log and ./dwell status say it. */
        public String describe() {
            List<String> parts = new ArrayList<>();
            if (search) parts.add("search");
            if (documentApi) parts.add("document-api");
            if (documentProcessing) parts.add("document-processing");
            return "container cluster '" + id + "' on localhost:" + port + (parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")");
        }

    }

    public static PackageServices of(VespaModel model, Path deployedDir) {
        var clusters = model.getContainerClusters();
        if (clusters.isEmpty())
            throw new InvalidApplicationException("dwell's runtime serves packages with a container cluster, this package has none");
        Map<String, Integer> ports = ports(model);
        List<ContainerSpec> containers = new ArrayList<>();
        for (ApplicationContainerCluster cluster : clusters.values())
            containers.add(new ContainerSpec(cluster.getName(), ports.get(cluster.getName()), cluster.getSearch() != null,
                                             cluster.getComponentsMap().containsKey(ComponentId.fromString(DOCUMENT_V1)),
                                             cluster.getDocproc() != null));
        List<ContentNodeSpec> nodes = new ArrayList<>();
        for (ContentCluster content : model.getContentClusters().values())
            for (StorageNode node : content.getRootGroup().recursiveGetNodes())
                nodes.add(new ContentNodeSpec(content.getName(), node.getDistributionKey(), node.getHostName()));
        Set<String> hosts = new LinkedHashSet<>();
        model.getHosts().forEach(host -> hosts.add(host.getHostname()));
        nodes.forEach(node -> hosts.remove(node.host()));
        String processing = processingCluster(model);
        return new PackageServices(List.copyOf(containers), processing, List.copyOf(nodes),
                                   docprocChains(deployedDir.resolve("services.xml"), processing), Set.copyOf(hosts));
    }

    static final String DOCUMENT_V1 = "com.yahoo.document.restapi.resource.DocumentV1ApiHandler";

    /** The port of the container cluster that processes documents (the only one, in most packages). */
    public int containerPort() { return container(containerCluster).port(); }

    /** The container cluster of this id. */
    public ContainerSpec container(String id) {
        return containers.stream().filter(container -> container.id().equals(id)).findFirst()
                         .orElseThrow(() -> new IllegalArgumentException("No container cluster '" + id + "' in " + containers));
    }

    /** The container cluster whose dispatchers search the content clusters: the first with search, else the processing one. */
    public String searchCluster() {
        return containers.stream().filter(ContainerSpec::search).map(ContainerSpec::id).findFirst().orElse(containerCluster);
    }

    /**
     * The container cluster the content clusters' writes are processed in: the one each names in its
     * document-processing element, or that Vespa's model gave it; with one container cluster, that one. Content
     * clusters that name different ones are refused: the runtime sends every write through one container's chains.
     */
    static String processingCluster(VespaModel model) {
        var clusters = model.getContainerClusters();
        if (clusters.size() == 1) return clusters.keySet().iterator().next();
        Map<String, String> named = new java.util.TreeMap<>();
        for (ContentCluster content : model.getContentClusters().values()) {
            var indexing = content.getSearch().getIndexingDocproc();
            if (indexing == null) continue;
            String name = indexing.getClusterName(content.getName());
            if (clusters.containsKey(name)) named.put(content.getName(), name);
        }
        if (new java.util.HashSet<>(named.values()).size() > 1)
            throw new InvalidApplicationException("dwell's runtime processes every write in one container cluster, the content " +
                                                  "clusters of this package name several for their document-processing: " + named);
        if ( ! named.isEmpty()) return named.values().iterator().next();
        return clusters.values().stream().filter(cluster -> cluster.getDocproc() != null).map(ApplicationContainerCluster::getName)
                       .findFirst().orElse(clusters.keySet().iterator().next());
    }

    /**
     * The port each container cluster is served on, here, where all share one machine. One cluster: its port as Vespa's
     * model gives it (see {@link #containerPort(ApplicationContainerCluster)}), 8080 unless services.xml sets one. Several,
     * in services.xml's order: each its own port from the model where no cluster before it took it, else the lowest port
     * from 8080 up that no cluster has or declares (on Vespa each would listen on the same port of its own hosts).
     */
    static Map<String, Integer> ports(VespaModel model) {
        Map<String, Integer> wanted = new LinkedHashMap<>();
        model.getContainerClusters().values().forEach(cluster -> wanted.put(cluster.getName(), containerPort(cluster)));
        Map<String, Integer> ports = new LinkedHashMap<>();
        Set<Integer> taken = new java.util.HashSet<>();
        wanted.forEach((id, port) -> {
            int chosen = port;
            if (taken.contains(chosen)) {
                chosen = 8080;
                while (taken.contains(chosen) || wanted.containsValue(chosen)) chosen++;
            }
            taken.add(chosen);
            ports.put(id, chosen);
        });
        return ports;
    }

    /**
     * The HTTP port of a container cluster as Vespa's model gives it: its first server's when services.xml has an http
     * element (as the runtime's working copy has), else the container's default.
     */
    static int containerPort(ApplicationContainerCluster container) {
        // with an http section (the runtime's working copy adds one), the port is its server's: Vespa's
        // getSearchPort refuses to answer then (served with --shards, the model is the working copy's)
        var server = container.getHttp() == null ? java.util.Optional.<com.yahoo.vespa.model.container.http.JettyHttpServer>empty()
                                                 : container.getHttp().getHttpServer();
        if (server.isPresent() && ! server.get().getConnectorFactories().isEmpty())
            return server.get().getConnectorFactories().get(0).getListenPort();
        return container.getContainers().isEmpty() ? 8080 : container.getContainers().get(0).getSearchPort();
    }

    /** Whether the container cluster's document-processing has a chain with the id "default". */
    private static boolean hasDefaultChain(org.w3c.dom.Document xml, String containerId) {
        NodeList processings = xml.getElementsByTagName("document-processing");
        for (int i = 0; i < processings.getLength(); i++) {
            Element processing = (Element) processings.item(i);
            Element parent = (Element) processing.getParentNode();
            if ( ! "container".equals(parent.getTagName())) continue;
            if (containerId != null && ! containerId.equals(parent.getAttribute("id")) && ! isOnlyContainer(xml, parent)) continue;
            NodeList chains = processing.getElementsByTagName("chain");
            for (int c = 0; c < chains.getLength(); c++)
                if ("default".equals(((Element) chains.item(c)).getAttribute("id"))) return true;
        }
        return false;
    }

    public List<String> contentHosts() {
        return contentNodes.stream().map(ContentNodeSpec::host).distinct().toList();
    }

    /**
     * For each document type of a content cluster, the docproc chains its writes pass through before indexing, in
     * order: the container's chain named "default", where it has one (Vespa's default route runs it for every
     * write), then the chain the content cluster names in its document-processing element. Types with neither are
     * left out.
     */
    static Map<String, List<String>> docprocChains(Path services) { return docprocChains(services, null); }

    /** Whether this is the only container element of services.xml (whose id Vespa's model defaults). */
    private static boolean isOnlyContainer(org.w3c.dom.Document xml, Element container) {
        return xml.getElementsByTagName("container").getLength() == 1;
    }

    /** As above, the "default" chain taken from this container cluster's document-processing only (null: any container's). */
    static Map<String, List<String>> docprocChains(Path services, String containerId) {
        Map<String, List<String>> chains = new HashMap<>();
        try {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            org.w3c.dom.Document xml = factory.newDocumentBuilder().parse(services.toFile());
            boolean defaultChain = hasDefaultChain(xml, containerId);
            NodeList documentsElements = xml.getElementsByTagName("documents");
            for (int i = 0; i < documentsElements.getLength(); i++) {
                Element documents = (Element) documentsElements.item(i);
                List<String> typeChains = new ArrayList<>();
                if (defaultChain) typeChains.add("default");
                NodeList processing = documents.getElementsByTagName("document-processing");
                String chain = processing.getLength() > 0 ? ((Element) processing.item(0)).getAttribute("chain") : "";
                // "indexing" is Vespa's own chain, whose indexing statements the runtime runs itself after the others
                if ( ! chain.isEmpty() && ! chain.equals("default") && ! chain.equals("indexing")) typeChains.add(chain);
                if (typeChains.isEmpty()) continue;
                NodeList types = documents.getElementsByTagName("document");
                for (int t = 0; t < types.getLength(); t++)
                    chains.put(((Element) types.item(t)).getAttribute("type"), List.copyOf(typeChains));
            }
        }
        catch (Exception e) {
            if (Files.exists(services)) throw new InvalidApplicationException("Could not read " + services + ": " + e.getMessage(), e);
        }
        return chains;
    }

}
