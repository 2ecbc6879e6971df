package ai.dwell.runtime.serve.deploy;

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the runtime needs to know about the services of a deployed package: its container
 * cluster, its content clusters with their nodes, and the docproc chains each document type is
 * fed through. Read from Vespa's model of the package, and from services.xml for the chains.
 */
public record PackageServices(String containerCluster, int containerPort, List<ContentNodeSpec> contentNodes,
                              Map<String, List<String>> docprocChainsOfType, Set<String> serviceHosts) {

    /** One content node: its cluster, distribution key and host. */
    public record ContentNodeSpec(String cluster, int distributionKey, String host) {}

    public static PackageServices of(VespaModel model, Path deployedDir) {
        var containers = model.getContainerClusters();
        if (containers.size() != 1)
            throw new InvalidApplicationException("dwell's runtime serves exactly one container cluster, this package has " +
                                                  containers.keySet());
        ApplicationContainerCluster container = containers.values().iterator().next();
        int port = containerPort(model);
        List<ContentNodeSpec> nodes = new ArrayList<>();
        for (ContentCluster content : model.getContentClusters().values())
            for (StorageNode node : content.getRootGroup().recursiveGetNodes())
                nodes.add(new ContentNodeSpec(content.getName(), node.getDistributionKey(), node.getHostName()));
        Set<String> hosts = new LinkedHashSet<>();
        model.getHosts().forEach(host -> hosts.add(host.getHostname()));
        nodes.forEach(node -> hosts.remove(node.host()));
        return new PackageServices(container.getName(), port, List.copyOf(nodes), docprocChains(deployedDir.resolve("services.xml")),
                                   Set.copyOf(hosts));
    }

    /**
     * The HTTP port of the (one) container cluster: its first server's when services.xml has an http
     * element (as the runtime's working copy has), else the container's default.
     */
    static int containerPort(VespaModel model) {
        ApplicationContainerCluster container = model.getContainerClusters().values().iterator().next();
        // with an http section (the runtime's working copy adds one), the port is its server's: Vespa's
        // getSearchPort refuses to answer then (served with --shards, the model is the working copy's)
        var server = container.getHttp() == null ? java.util.Optional.<com.yahoo.vespa.model.container.http.JettyHttpServer>empty()
                                                 : container.getHttp().getHttpServer();
        if (server.isPresent() && ! server.get().getConnectorFactories().isEmpty())
            return server.get().getConnectorFactories().get(0).getListenPort();
        return container.getContainers().isEmpty() ? 8080 : container.getContainers().get(0).getSearchPort();
    }

    /** Whether a container's document-processing has a chain with the id "default". */
    private static boolean hasDefaultChain(org.w3c.dom.Document xml) {
        NodeList processings = xml.getElementsByTagName("document-processing");
        for (int i = 0; i < processings.getLength(); i++) {
            Element processing = (Element) processings.item(i);
            if ( ! "container".equals(((Element) processing.getParentNode()).getTagName())) continue;
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
    static Map<String, List<String>> docprocChains(Path services) {
        Map<String, List<String>> chains = new HashMap<>();
        try {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            org.w3c.dom.Document xml = factory.newDocumentBuilder().parse(services.toFile());
            boolean defaultChain = hasDefaultChain(xml);
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
