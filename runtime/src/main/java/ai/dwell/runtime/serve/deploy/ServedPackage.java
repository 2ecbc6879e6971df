package ai.dwell.runtime.serve.deploy;

import com.yahoo.vespa.model.VespaModel;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import com.yahoo.text.XML;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The runtime's working copy of a deployed package, which the container serves.
 *
 * The container gets the list of content clusters and their bucket spaces from the full model
 * (the standalone container model does not see them). And docproc chains that inherit Vespa's
 * "indexing" chain do not, here, and content clusters do not name their indexing chain. The
 * "indexing" chain holds Vespa's IndexingProcessor, which is not published to Maven Central; the
 * runtime sends each write through the chain the deployed package names and then runs the
 * schemas' indexing statements itself, with Vespa's indexing language (see the feed package).
 * The deployed package itself, and what a real Vespa gets, is never changed.
 */
public final class ServedPackage {

    private ServedPackage() {}

    /** Copies the package in source to target and adapts the copy. Returns target. */

    /**
     * Copies and adapts the package; with shards > 0, every content cluster is served by that many
     * content nodes instead of the ones the package declares (see {@link ContentShards}).
     */
    public static Path prepare(Path source, Path target, int shards, VespaModel model, PackageServices declared) {
        try {
            PackageFiles.deleteRecursively(target);
            PackageFiles.copy(source, target);
            Path services = target.resolve("services.xml");
            if (Files.exists(services)) adapt(services, model, declared);
            if (shards > 0) ContentShards.rewrite(target, shards);
            return target;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + target, e);
        }
    }

    /** The container cluster this container element is, with its port here, or null if it is not one served. */
    private static PackageServices.ContainerSpec served(Element container, PackageServices declared) {
        for (var spec : declared.containers())
            if (spec.id().equals(container.getAttribute("id"))) return spec;
        return null;
    }

    private static void addComponent(Element container, String className) {
        Element component = container.getOwnerDocument().createElement("component");
        component.setAttribute("id", className);
        container.appendChild(component);
    }

    /**
     * The package a container cluster of a package with several is started from: the working copy in target, its
     * files hard links to the working copy's (copies where links cannot be made), its services.xml without the other
     * container clusters (and content clusters' document-processing in them), as Vespa's standalone container serves
     * exactly one (each cluster is its own container here, as on Vespa, where each runs on hosts of its own).
     * Returns target.
     */
    public static Path forCluster(Path served, Path target, String containerId) {
        try {
            PackageFiles.deleteRecursively(target);
            PackageFiles.link(served, target);
            Path services = target.resolve("services.xml");
            Files.delete(services);
            Files.copy(served.resolve("services.xml"), services);
            Document xml = XML.getDocument(Files.readString(services));
            List<Element> others = new ArrayList<>();
            for (Element element : XML.getChildren(xml.getDocumentElement()))
                if ((element.getTagName().equals("container") || element.getTagName().equals("jdisc")) && ! containerId.equals(element.getAttribute("id")))
                    others.add(element);
            // a content cluster's document processing in another cluster (which this copy has not) is that cluster's
            NodeList processing = xml.getElementsByTagName("document-processing");
            for (int i = processing.getLength() - 1; i >= 0; i--) {
                Element element = (Element) processing.item(i);
                if ("documents".equals(element.getParentNode().getNodeName()) && ! containerId.equals(element.getAttribute("cluster")))
                    others.add(element);
            }
            others.forEach(element -> element.getParentNode().removeChild(element));
            write(xml, services);
            return target;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + target, e);
        }
    }

    private static void write(Document xml, Path services) {
        try {
            var transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.INDENT, "no");
            transformer.transform(new DOMSource(xml), new StreamResult(services.toFile()));
        }
        catch (javax.xml.transform.TransformerException e) {
            throw new IllegalStateException("Could not write " + services, e);
        }
    }

    private static void adapt(Path services, VespaModel model, PackageServices declared) {
        try {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document xml = factory.newDocumentBuilder().parse(services.toFile());
            NodeList chains = xml.getElementsByTagName("chain");
            boolean changed = false;
            for (int i = 0; i < chains.getLength(); i++) {
                Element chain = (Element) chains.item(i);
                if ( ! "document-processing".equals(chain.getParentNode().getNodeName())) continue;
                String inherits = chain.getAttribute("inherits");
                if (inherits.isEmpty()) continue;
                String kept = Arrays.stream(inherits.trim().split("\\s+"))
                                    .filter(name -> ! name.equals("indexing"))
                                    .collect(Collectors.joining(" "));
                if (kept.equals(inherits.trim())) continue;
                if (kept.isEmpty()) chain.removeAttribute("inherits");
                else chain.setAttribute("inherits", kept);
                changed = true;
            }
            NodeList processing = xml.getElementsByTagName("document-processing");
            for (int i = processing.getLength() - 1; i >= 0; i--) {
                Element element = (Element) processing.item(i);
                if ( ! "documents".equals(element.getParentNode().getNodeName())) continue;
                // with several container clusters, the one the writes are processed in stays named (Vespa's model gives
                // it the indexing chain, whose statements the runtime runs): only the chain is left out
                if (declared.containers().size() > 1 && element.hasAttribute("cluster")) element.removeAttribute("chain");
                else element.getParentNode().removeChild(element);
                changed = true;
            }
            NodeList containers = xml.getElementsByTagName("container");
            for (int i = 0; i < containers.getLength(); i++) {
                Element container = (Element) containers.item(i);
                var served = served(container, declared);
                if (served == null) continue;
                String containerId = served.id();
                int port = served.port();
                if ( ! model.getContentClusters().isEmpty()) ContentClusterList.addTo(container, model, containerId);
                if (container.getElementsByTagName("document-api").getLength() > 0) DocumentApiGuard.addTo(container, port);
                AccessFilterChain.addTo(container, port, declared.containers().size() > 1);
                addComponent(container, ai.dwell.runtime.serve.container.InjectedLinguistics.class.getName()); // the linguistics indexing uses
                SearchAdmission.addTo(container, port);
                changed = true;
            }
            // the full model, built with this Vespa's version, has checked it; Vespa's standalone container (Application)
            // builds its model with DeployState's default version, 1.0.0, and would refuse any minimum
            if (xml.getDocumentElement().hasAttribute("minimum-required-vespa-version")) {
                xml.getDocumentElement().removeAttribute("minimum-required-vespa-version");
                changed = true;
            }
            if ( ! changed) return;
            write(xml, services);
        }
        catch (Exception e) {
            throw new IllegalArgumentException("Could not read " + services + ": " + e.getMessage(), e);
        }
    }

}
