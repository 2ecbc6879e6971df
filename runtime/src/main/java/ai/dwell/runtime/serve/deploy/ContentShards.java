package ai.dwell.runtime.serve.deploy;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Serves each content cluster with a chosen number of content nodes (shards) instead of those
 * the package declares, for measuring how ranking scales with nodes on one machine. Rewrites the
 * runtime's working copy only: each cluster gets nodes on hosts dwell-shard-0 ... (added to
 * hosts.xml when the package has one), in one group.
 */
final class ContentShards {

    static final String HOST_PREFIX = "dwell-shard-";

    private ContentShards() {}

    static void rewrite(Path packageDir, int shards) {
        try {
            rewriteFiles(packageDir, shards);
        }
        catch (Exception e) {
            throw new InvalidApplicationException("Could not serve the package with " + shards + " content nodes: " + e.getMessage(), e);
        }
    }

    private static void rewriteFiles(Path packageDir, int shards) throws Exception {
        Path services = packageDir.resolve("services.xml");
        Document xml = parse(services);
        NodeList contents = xml.getElementsByTagName("content");
        for (int i = 0; i < contents.getLength(); i++) {
            Element content = (Element) contents.item(i);
            removeChildren(content, "group");
            removeChildren(content, "nodes");
            Element nodes = xml.createElement("nodes");
            for (int key = 0; key < shards; key++) {
                Element node = xml.createElement("node");
                node.setAttribute("hostalias", HOST_PREFIX + key);
                node.setAttribute("distribution-key", Integer.toString(key));
                nodes.appendChild(node);
            }
            content.appendChild(nodes);
            for (String redundancy : new String[] {"redundancy", "min-redundancy"})
                for (Element element : children(content, redundancy))
                    if (Integer.parseInt(element.getTextContent().trim()) > shards) element.setTextContent(Integer.toString(shards));
        }
        write(xml, services);

        Path hostsFile = packageDir.resolve("hosts.xml");
        if (Files.exists(hostsFile)) {
            Document hosts = parse(hostsFile);
            Element root = hosts.getDocumentElement();
            for (int key = 0; key < shards; key++) {
                Element host = hosts.createElement("host");
                host.setAttribute("name", HOST_PREFIX + key + ".local");
                Element alias = hosts.createElement("alias");
                alias.setTextContent(HOST_PREFIX + key);
                host.appendChild(alias);
                root.appendChild(host);
            }
            write(hosts, hostsFile);
        }
    }

    private static java.util.List<Element> children(Element parent, String name) {
        java.util.List<Element> found = new java.util.ArrayList<>();
        for (Node child = parent.getFirstChild(); child != null; child = child.getNextSibling())
            if (child instanceof Element element && element.getTagName().equals(name)) found.add(element);
        return found;
    }

    private static void removeChildren(Element parent, String name) {
        for (Element child : children(parent, name)) parent.removeChild(child);
    }

    private static Document parse(Path file) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

    private static void write(Document xml, Path file) throws Exception {
        var transformer = TransformerFactory.newInstance().newTransformer();
        transformer.setOutputProperty(OutputKeys.INDENT, "no");
        transformer.transform(new DOMSource(xml), new StreamResult(file.toFile()));
    }

}
