package ai.dwell.application;

import ai.vespa.rankingexpression.importer.onnx.OnnxImporter;
import com.yahoo.component.Version;
import com.yahoo.config.model.NullConfigModelRegistry;
import com.yahoo.config.model.api.ApplicationClusterEndpoint;
import com.yahoo.config.model.api.ContainerEndpoint;
import com.yahoo.config.model.api.ValidationParameters;
import com.yahoo.config.model.application.provider.ApplicationPackageXmlFilesValidator;
import com.yahoo.config.model.application.provider.BaseDeployLogger;
import com.yahoo.config.model.application.provider.FilesApplicationPackage;
import com.yahoo.config.model.deploy.DeployState;
import com.yahoo.config.model.deploy.TestProperties;
import com.yahoo.config.model.provision.InMemoryProvisioner;
import com.yahoo.config.provision.ApplicationId;
import com.yahoo.config.provision.Capacity;
import com.yahoo.config.provision.Cloud;
import com.yahoo.config.provision.CloudName;
import com.yahoo.config.provision.ClusterSpec;
import com.yahoo.config.provision.Environment;
import com.yahoo.config.provision.NodeResources;
import com.yahoo.config.provision.RegionName;
import com.yahoo.config.provision.SystemName;
import com.yahoo.config.provision.Zone;
import com.yahoo.security.KeyAlgorithm;
import com.yahoo.security.KeyUtils;
import com.yahoo.security.SignatureAlgorithm;
import com.yahoo.security.X509CertificateBuilder;
import com.yahoo.security.X509CertificateUtils;
import com.yahoo.vespa.config.content.StorDistributionConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.application.validation.Validation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

import javax.security.auth.x500.X500Principal;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The deployments docs/deploy.md describes, as Vespa's config model builds them from the built package
 * (target/application). The package carries Vespa Cloud's node counts (a {@code <nodes deploy:cloud=...
 * deploy:environment=...>} in each cluster of services.xml) and deployment.xml. A copy of the package is preprocessed
 * for a zone as a config server preprocesses it (the deploy:* attributes choose a {@code <nodes>}), its XML files are
 * checked against Vespa's schemas, and its model is built and validated: for a self-hosted zone (hosts.xml), and for
 * Vespa Cloud's production, test, staging and dev zones (hosted; nodes from an in-memory provisioner standing in for
 * Vespa Cloud's, so only what the model asks for is checked, not what Vespa Cloud gives).
 * The guide's xml blocks are checked to be the package's, element for element, so the guide cannot drift from it; and a
 * copy without the deploy:cloud {@code <nodes>} is refused in Vespa Cloud production, which is why the package has them.
 */
public class DeploymentGuideIT {

    private static final Path GUIDE = DwellApplication.root().resolve("docs/deploy.md");
    private static final ApplicationId APPLICATION = ApplicationId.from("mytenant", "dwell", "default");
    private static final String CONTAINER = "dwell_container", CONTENT = "dwell";
    private static final String DEPLOY_NAMESPACE = "vespa";

    @Test
    void aSelfHostedClusterIsLaidOutByHostsXml(@TempDir Path dir) throws IOException {
        VespaModel model = build(copy(dir), Zone.defaultZone(), null);

        assertEquals(Set.of("dwell-admin0.example.com", "dwell-container0.example.com", "dwell-container1.example.com",
                            "dwell-content0.example.com", "dwell-content1.example.com", "dwell-content2.example.com"),
                     hostnames(model));
        assertEquals(2, model.getContainerClusters().get(CONTAINER).getContainers().size());
        StorDistributionConfig distribution = model.getConfig(StorDistributionConfig.class, CONTENT);
        assertEquals(2, distribution.redundancy());
        assertEquals(3, distribution.group(0).nodes().size());
        assertTrue(jvmOptions(model).contains("-Xmx2g"), "the self-hosted <nodes> with its <jvm>: " + jvmOptions(model));
    }

    @Test
    void vespaCloudProductionGetsTheCloudNodeCountsAndResources(@TempDir Path dir) throws IOException {
        InMemoryProvisioner provisioner = provisioner(Environment.prod);
        VespaModel model = build(copy(dir), cloudZone(Environment.prod), provisioner);

        Nodes container = cloudNodes(CONTAINER), content = cloudNodes(CONTENT);
        assertEquals(container.count(), model.getContainerClusters().get(CONTAINER).getContainers().size());
        StorDistributionConfig distribution = model.getConfig(StorDistributionConfig.class, CONTENT);
        assertEquals(2, distribution.redundancy(), "min-redundancy 2");
        assertEquals(content.count(), distribution.group(0).nodes().size());
        assertRequested(container, provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTAINER)));
        assertRequested(content, provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTENT)));
        assertFalse(hostnames(model).contains("dwell-container0.example.com"), "hosts.xml is not used");
        assertFalse(jvmOptions(model).contains("-Xmx2g"), "the cloud <nodes> has no <jvm>: " + jvmOptions(model));
    }

    @Test
    void vespaCloudsTestAndStagingZonesGetTheSameRequests(@TempDir Path dir) throws IOException {
        Path app = copy(dir);
        for (Environment environment : List.of(Environment.test, Environment.staging)) {
            InMemoryProvisioner provisioner = provisioner(environment);
            VespaModel model = build(app, cloudZone(environment), provisioner);
            assertRequested(cloudNodes(CONTAINER), provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTAINER)));
            assertRequested(cloudNodes(CONTENT), provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTENT)));
            assertFalse(jvmOptions(model).contains("-Xmx2g"), environment + ": the cloud <nodes> has no <jvm>");
        }
    }

    /** The hostalias <nodes>, without count: the config model itself asks for one node per cluster, not as required. */
    @Test
    void vespaCloudDevKeepsOneNodePerCluster(@TempDir Path dir) throws IOException {
        InMemoryProvisioner provisioner = provisioner(Environment.dev);
        VespaModel model = build(copy(dir), cloudZone(Environment.dev), provisioner);
        for (String cluster : List.of(CONTAINER, CONTENT)) {
            Capacity requested = provisioner.provisioned().all().get(ClusterSpec.Id.from(cluster));
            assertNotNull(requested, cluster);
            assertEquals(1, requested.minResources().nodes(), cluster);
            assertFalse(requested.isRequired(), cluster);
        }
        assertEquals(1, model.getContainerClusters().get(CONTAINER).getContainers().size());
        StorDistributionConfig distribution = model.getConfig(StorDistributionConfig.class, CONTENT);
        assertEquals(1, distribution.group(0).nodes().size());
        assertEquals(1, distribution.redundancy(), "one copy on the one node, whatever min-redundancy says");
        assertTrue(jvmOptions(model).contains("-Xmx2g"), "the <jvm> of the hostalias <nodes> applies: " + jvmOptions(model));
    }

    @Test
    void withoutTheCloudNodesThePackageIsRefusedInVespaCloudProduction(@TempDir Path dir) throws IOException {
        Path app = copy(dir);
        Path services = app.resolve("services.xml");
        Matcher cloudNodes = Pattern.compile("(?s)\\s*<nodes deploy:cloud=\"[^\"]*\"[^>]*>.*?</nodes>").matcher(Files.readString(services));
        StringBuilder without = new StringBuilder();
        int removed = 0;
        while (cloudNodes.find()) {
            cloudNodes.appendReplacement(without, "");
            removed++;
        }
        cloudNodes.appendTail(without);
        assertEquals(2, removed, "a deploy:cloud <nodes> in each cluster of services.xml");
        Files.writeString(services, without.toString());

        build(app, Zone.defaultZone(), null);   // still a valid self-hosted package
        var e = assertThrows(IllegalArgumentException.class,
                             () -> build(app, cloudZone(Environment.prod), provisioner(Environment.prod)));
        assertTrue(messages(e).contains("must have a <nodes count='N'> tag"), messages(e));
    }

    // ---- the guide against the package

    @Test
    void theGuidesServicesXmlBlocksAreThePackages() {
        Element services = parse(DwellApplication.packageDir().resolve("services.xml"));
        Map<String, Element> clusters = Map.of("<container id=\"" + CONTAINER + "\">", cluster(services, "container", CONTAINER),
                                               "<content id=\"" + CONTENT + "\">", cluster(services, "content", CONTENT));
        for (var cluster : clusters.entrySet()) {
            String block = guideBlock(b -> b.startsWith("<!--") && b.lines().findFirst().orElseThrow().contains(cluster.getKey()));
            List<Element> shown = elements(parse("<services xmlns:deploy=\"" + DEPLOY_NAMESPACE + "\">" + block + "</services>"));
            assertTrue(shown.stream().anyMatch(e -> e.hasAttributeNS(DEPLOY_NAMESPACE, "cloud")),
                       "the guide shows the deploy:cloud <nodes> of " + cluster.getKey());
            for (Element element : shown) {
                List<String> candidates = elements(cluster.getValue()).stream().filter(e -> e.getTagName().equals(element.getTagName()))
                                                                      .map(DeploymentGuideIT::describe).toList();
                assertTrue(candidates.contains(describe(element)),
                           "docs/deploy.md shows in " + cluster.getKey() + "\n" + describe(element) +
                           "\nbut services.xml has\n" + String.join("\n", candidates));
            }
        }
    }

    @Test
    void theGuidesDeploymentXmlIsThePackages() {
        Element shown = parse(guideBlock(b -> b.contains("<deployment")));
        Element deployment = parse(DwellApplication.packageDir().resolve("deployment.xml"));
        assertEquals(describe(deployment), describe(shown), "docs/deploy.md's deployment.xml against the package's");
    }

    // ---- the package

    /** A copy of target/application, with a self-signed certificate in security/clients.pem as `vespa auth cert` makes. */
    private static Path copy(Path dir) throws IOException {
        Path source = DwellApplication.packageDir(), target = dir.resolve("application");
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(to);
                else Files.copy(file, to);
            }
        }
        Files.createDirectories(target.resolve("security"));
        Files.writeString(target.resolve("security/clients.pem"), X509CertificateUtils.toPem(certificate()));
        return target;
    }

    private static java.security.cert.X509Certificate certificate() {
        KeyPair keys = KeyUtils.generateKeypair(KeyAlgorithm.EC);
        X500Principal subject = new X500Principal("CN=cloud.vespa.example");
        Instant now = Instant.now();
        return X509CertificateBuilder.fromKeypair(keys, subject, now, now.plus(Duration.ofDays(1)),
                                                  SignatureAlgorithm.SHA256_WITH_ECDSA, BigInteger.ONE).build();
    }

    record Nodes(int count, double vcpu, double memoryGb, double diskGb) {}

    /** The count and resources of the deploy:cloud <nodes> of this cluster in the package's services.xml. */
    private static Nodes cloudNodes(String id) {
        Element services = parse(DwellApplication.packageDir().resolve("services.xml"));
        Element cluster = cluster(services, id.equals(CONTAINER) ? "container" : "content", id);
        List<Element> nodes = elements(cluster).stream()
                                               .filter(e -> e.getTagName().equals("nodes") && e.hasAttributeNS(DEPLOY_NAMESPACE, "cloud"))
                                               .toList();
        assertEquals(1, nodes.size(), "one deploy:cloud <nodes> in " + id);
        List<Element> resources = elements(nodes.get(0)).stream().filter(e -> e.getTagName().equals("resources")).toList();
        assertEquals(1, resources.size(), "<resources> in the deploy:cloud <nodes> of " + id);
        Element r = resources.get(0);
        return new Nodes(Integer.parseInt(nodes.get(0).getAttribute("count")), Double.parseDouble(r.getAttribute("vcpu")),
                         gb(r.getAttribute("memory")), gb(r.getAttribute("disk")));
    }

    private static double gb(String value) {
        assertTrue(value.endsWith("Gb"), value);
        return Double.parseDouble(value.substring(0, value.length() - 2));
    }

    /** The count and resources, asked for as required: Vespa's preprocessor marks a <nodes> that a deploy: attribute chose so. */
    private static void assertRequested(Nodes expected, Capacity requested) {
        assertNotNull(requested);
        NodeResources resources = requested.minResources().nodeResources();
        assertEquals(expected.count(), requested.minResources().nodes());
        assertEquals(requested.minResources(), requested.maxResources());
        assertTrue(requested.isRequired(), "required");
        assertEquals(expected.vcpu(), resources.vcpu(), 1e-9);
        assertEquals(expected.memoryGb(), resources.memoryGiB(), 1e-9);
        assertEquals(expected.diskGb(), resources.diskGb(), 1e-9);
    }

    // ---- xml: the guide's blocks, and elements compared by name, attributes (with namespace) and child elements

    /** The guide's fenced xml blocks, each without its fence and common indentation. */
    static List<String> xmlBlocks() {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        String indent = "";
        try {
            for (String line : Files.readAllLines(GUIDE)) {
                String trimmed = line.strip();
                if (block == null && trimmed.equals("```xml")) {
                    block = new StringBuilder();
                    indent = line.substring(0, line.indexOf('`'));
                }
                else if (block != null && trimmed.equals("```")) {
                    blocks.add(block.toString());
                    block = null;
                }
                else if (block != null) {
                    block.append(line.startsWith(indent) ? line.substring(indent.length()) : line.strip()).append('\n');
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertFalse(blocks.isEmpty(), "docs/deploy.md has xml blocks");
        return blocks;
    }

    private static String guideBlock(java.util.function.Predicate<String> which) {
        List<String> found = xmlBlocks().stream().filter(which).toList();
        assertEquals(1, found.size(), "exactly one such xml block in docs/deploy.md: " + found);
        return found.get(0);
    }

    private static Element parse(Path file) {
        try {
            return parse(Files.readString(file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Element parse(String xml) {
        try {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml))).getDocumentElement();
        }
        catch (Exception e) {
            throw new IllegalArgumentException("not xml: " + xml, e);
        }
    }

    private static List<Element> elements(Element parent) {
        List<Element> children = new ArrayList<>();
        for (Node child = parent.getFirstChild(); child != null; child = child.getNextSibling())
            if (child instanceof Element element) children.add(element);
        return children;
    }

    private static Element cluster(Element services, String tag, String id) {
        return elements(services).stream().filter(e -> e.getTagName().equals(tag) && e.getAttribute("id").equals(id))
                                 .findFirst().orElseThrow(() -> new AssertionError("services.xml has no <" + tag + " id=\"" + id + "\">"));
    }

    /**
     * An element as text to compare: its name, its attributes sorted (a namespaced one as {namespace}name; namespace
     * declarations left out), its text, and its child elements in order; comments and whitespace left out.
     */
    static String describe(Element element) {
        StringBuilder b = new StringBuilder();
        describe(element, "", b);
        return b.toString();
    }

    private static void describe(Element element, String indent, StringBuilder b) {
        b.append(indent).append('<').append(element.getLocalName() != null ? element.getLocalName() : element.getTagName());
        NamedNodeMap attributes = element.getAttributes();
        Map<String, String> sorted = new TreeMap<>();
        for (int i = 0; i < attributes.getLength(); i++) {
            Node a = attributes.item(i);
            if (XMLConstants.XMLNS_ATTRIBUTE_NS_URI.equals(a.getNamespaceURI())) continue;
            String name = a.getLocalName() != null ? a.getLocalName() : a.getNodeName();
            sorted.put(a.getNamespaceURI() == null ? name : "{" + a.getNamespaceURI() + "}" + name, a.getNodeValue());
        }
        sorted.forEach((name, value) -> b.append(' ').append(name).append("=\"").append(value).append('"'));
        b.append(">\n");
        StringBuilder text = new StringBuilder();
        for (Node child = element.getFirstChild(); child != null; child = child.getNextSibling())
            if (child.getNodeType() == Node.TEXT_NODE || child.getNodeType() == Node.CDATA_SECTION_NODE)
                text.append(child.getNodeValue());
        if ( ! text.toString().isBlank()) b.append(indent).append("  ").append(text.toString().strip()).append('\n');
        for (Element child : elements(element)) describe(child, indent + "  ", b);
    }

    // ---- building the model as a config server would

    private static Zone cloudZone(Environment environment) {
        return new Zone(Cloud.builder().name(CloudName.AWS).build(), SystemName.Public, environment, RegionName.from("aws-us-east-1c"));
    }

    /** Enough hosts for the clusters and the cluster controllers Vespa Cloud adds, each large enough for any of them. */
    private static InMemoryProvisioner provisioner(Environment environment) {
        return new InMemoryProvisioner(20, new NodeResources(16, 64, 1000, 10), true).setEnvironment(environment);
    }

    /**
     * Preprocesses the package for the zone (the deploy:* attributes choose elements), checks the preprocessed XML files
     * against Vespa's schemas, then builds and validates the model, as a config server does; hosted when a provisioner is given.
     */
    static VespaModel build(Path applicationDir, Zone zone, InMemoryProvisioner provisioner) {
        try {
            FilesApplicationPackage app = (FilesApplicationPackage) FilesApplicationPackage.fromDir(applicationDir.toFile(), Map.of())
                                                                                           .preprocess(zone, new BaseDeployLogger());
            ApplicationPackageXmlFilesValidator.create(app.getAppDir(), new Version(8)).checkApplication();
            TestProperties properties = new TestProperties().setApplicationId(APPLICATION).setHostedVespa(provisioner != null);
            DeployState.Builder builder = new DeployState.Builder().applicationPackage(app)
                                                                   .zone(zone)
                                                                   .properties(properties)
                                                                   .modelImporters(List.of(new OnnxImporter()));
            if (provisioner != null) // as Vespa Cloud's controller does, which also names the zone endpoint of each container cluster
                builder.modelHostProvisioner(provisioner)
                       .endpoints(Set.of(new ContainerEndpoint(CONTAINER, ApplicationClusterEndpoint.Scope.zone,
                                                               List.of("dwell.mytenant.aws-us-east-1c.z.vespa-app.cloud"),
                                                               OptionalInt.empty(), ApplicationClusterEndpoint.RoutingMethod.exclusive)));
            DeployState state = builder.build();
            VespaModel model = new VespaModel(new NullConfigModelRegistry(), state);
            new Validation().validate(model, new ValidationParameters(ValidationParameters.IgnoreValidationErrors.FALSE,
                                                                      ValidationParameters.FailOnIncompatibleChange.TRUE,
                                                                      ValidationParameters.CheckRouting.TRUE),
                                      state);
            return model;
        }
        catch (RuntimeException e) {
            throw e;
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Set<String> hostnames(VespaModel model) {
        return model.getHosts().stream().map(h -> h.getHostname()).collect(Collectors.toSet());
    }

    private static String jvmOptions(VespaModel model) {
        return model.getContainerClusters().get(CONTAINER).getContainers().get(0).getAssignedJvmOptions();
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) b.append(t.getMessage()).append(" | ");
        return b.toString();
    }

}
