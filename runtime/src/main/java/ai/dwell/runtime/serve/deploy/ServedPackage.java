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
import java.util.Arrays;
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
    public static Path prepare(Path source, Path target, int shards, VespaModel model, String containerId) {
        try {
            PackageFiles.deleteRecursively(target);
            PackageFiles.copy(source, target);
            Path services = target.resolve("services.xml");
            if (Files.exists(services)) adapt(services, model, containerId);
            if (shards > 0) ContentShards.rewrite(target, shards);
            return target;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not prepare " + target, e);
        }
    }

    private static void addComponent(Element container, String className) {
        Element component = container.getOwnerDocument().createElement("component");
        component.setAttribute("id", className);
        container.appendChild(component);
    }

    private static void adapt(Path services, VespaModel model, String containerId) {
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
                element.getParentNode().removeChild(element);
                changed = true;
            }
            NodeList containers = xml.getElementsByTagName("container");
            for (int i = 0; i < containers.getLength(); i++) {
                Element container = (Element) containers.item(i);
                if ( ! containerId.equals(container.getAttribute("id")) || model.getContentClusters().isEmpty()) continue;
                ContentClusterList.addTo(container, model, containerId);
                changed = true;
            }
            for (int i = 0; i < containers.getLength(); i++) {
                Element container = (Element) containers.item(i);
                if ( ! containerId.equals(container.getAttribute("id"))) continue;
                if (container.getElementsByTagName("document-api").getLength() == 0) continue;
                DocumentApiGuard.addTo(container, PackageServices.containerPort(model));
                changed = true;
            }
            for (int i = 0; i < containers.getLength(); i++) {
                Element container = (Element) containers.item(i);
                if ( ! containerId.equals(container.getAttribute("id"))) continue;
                AccessFilterChain.addTo(container, PackageServices.containerPort(model));
                addComponent(container, ai.dwell.runtime.serve.container.InjectedLinguistics.class.getName()); // the linguistics indexing uses
                SearchAdmission.addTo(container, PackageServices.containerPort(model));
                changed = true;
            }
            // the full model, built with this Vespa's version, has checked it; Vespa's standalone container (Application)
            // builds its model with DeployState's default version, 1.0.0, and would refuse any minimum
            if (xml.getDocumentElement().hasAttribute("minimum-required-vespa-version")) {
                xml.getDocumentElement().removeAttribute("minimum-required-vespa-version");
                changed = true;
            }
            if ( ! changed) return;
            var transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.INDENT, "no");
            transformer.transform(new DOMSource(xml), new StreamResult(services.toFile()));
        }
        catch (Exception e) {
            throw new IllegalArgumentException("Could not read " + services + ": " + e.getMessage(), e);
        }
    }

}
