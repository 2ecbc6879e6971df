package ai.dwell.runtime.serve.deploy;

import com.yahoo.config.application.XmlPreProcessor;
import com.yahoo.config.application.api.ApplicationPackage;
import com.yahoo.config.provision.ApplicationName;
import com.yahoo.config.provision.InstanceName;
import com.yahoo.config.provision.Tags;
import com.yahoo.config.provision.Zone;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Resolves a package's deployment variants for the runtime's zone, as a config server preprocesses a package for
 * its own zone before it validates and builds it: elements with deploy:environment, deploy:region, deploy:cloud,
 * deploy:instance or deploy:tags kept or dropped, preprocess:properties substituted and preprocess:include files
 * included, by Vespa's own {@link XmlPreProcessor}. The runtime's zone is that of a self-hosted config server
 * ({@link Zone#defaultZone()}: environment prod, region default, cloud default), so a variant for Vespa Cloud
 * (deploy:cloud="aws ...") is dropped here, and the self-hosted elements are served.
 *
 * services.xml and hosts.xml are rewritten in place, in the runtime's copy of the deployed package, and only when
 * they use a variant: a package without one is served byte for byte as deployed.
 */
public final class PackageVariants {

    static final String DEPLOY_NAMESPACE = "vespa";
    static final String PREPROCESS_NAMESPACE = "properties";

    private PackageVariants() {}

    /** Resolves services.xml and hosts.xml of the package in this directory for the runtime's zone, in place. */
    public static void resolve(Path packageDir) {
        Zone zone = Zone.defaultZone();
        for (String name : List.of(ApplicationPackage.SERVICES, ApplicationPackage.HOSTS)) {
            Path file = packageDir.resolve(name);
            if ( ! Files.exists(file)) continue;
            try {
                if ( ! usesVariants(parse(file))) continue;
                Document resolved = new XmlPreProcessor(packageDir.toFile(), file.toFile(), ApplicationName.defaultName(),
                                                        InstanceName.defaultName(), zone.environment(), zone.region(),
                                                        zone.cloud().name(), Tags.empty()).run();
                var transformer = TransformerFactory.newInstance().newTransformer();
                transformer.setOutputProperty(OutputKeys.INDENT, "no");
                transformer.transform(new DOMSource(resolved), new StreamResult(file.toFile()));
            }
            catch (Exception e) {
                throw new InvalidApplicationException("Could not preprocess " + name + " for the zone " + zone.environment().value() +
                                                      "." + zone.region().value() + ": " + ModelBuilder.messages(e), e);
            }
        }
    }

    /** Whether the document has an element or attribute of the deploy: or preprocess: namespaces. */
    static boolean usesVariants(Document xml) {
        return usesVariants(xml.getDocumentElement());
    }

    private static boolean usesVariants(Element element) {
        if (isVariantNamespace(element.getNamespaceURI())) return true;
        NamedNodeMap attributes = element.getAttributes();
        for (int i = 0; i < attributes.getLength(); i++) {
            Node attribute = attributes.item(i);
            if (isVariantNamespace(attribute.getNamespaceURI())) return true;
        }
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++)
            if (children.item(i) instanceof Element child && usesVariants(child)) return true;
        return false;
    }

    private static boolean isVariantNamespace(String uri) {
        return DEPLOY_NAMESPACE.equals(uri) || PREPROCESS_NAMESPACE.equals(uri);
    }

    private static Document parse(Path file) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return factory.newDocumentBuilder().parse(file.toFile());
    }

}
