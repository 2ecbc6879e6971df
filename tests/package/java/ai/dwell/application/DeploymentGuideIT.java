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

import javax.security.auth.x500.X500Principal;
import java.io.IOException;
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
 * The deployments docs/deploy.md describes, as Vespa's config model builds them. The guide's additions for Vespa
 * Cloud production (a {@code <nodes deploy:cloud=... deploy:environment=...>} in each cluster of services.xml, and
 * deployment.xml) are read from the guide itself and put into a copy of the built package (target/application).
 * Each copy is preprocessed for a zone as a config server preprocesses it (the deploy:* attributes choose elements),
 * its XML files are checked against Vespa's schemas, and its model is built and validated: for a self-hosted zone
 * (hosts.xml), and for Vespa Cloud's production, test, staging and dev zones (hosted; nodes from an in-memory
 * provisioner standing in for Vespa Cloud's, so only what the model asks for is checked, not what Vespa Cloud gives).
 * The package as it is in application/ is checked against Vespa Cloud dev (accepted) and production (refused).
 */
public class DeploymentGuideIT {

    private static final Path GUIDE = DwellApplication.root().resolve("docs/deploy.md");
    private static final ApplicationId APPLICATION = ApplicationId.from("mytenant", "dwell", "default");
    private static final String CONTAINER = "dwell_container", CONTENT = "dwell";

    @Test
    void withTheGuidesAdditionsASelfHostedClusterIsLaidOutByHostsXml(@TempDir Path dir) throws IOException {
        VespaModel model = build(withTheGuidesAdditions(dir), Zone.defaultZone(), null);

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
    void withTheGuidesAdditionsVespaCloudProductionGetsTheirNodeCountsAndResources(@TempDir Path dir) throws IOException {
        InMemoryProvisioner provisioner = provisioner(Environment.prod);
        VespaModel model = build(withTheGuidesAdditions(dir), cloudZone(Environment.prod), provisioner);

        Nodes container = cloudNodes("<container id=\"" + CONTAINER + "\">"), content = cloudNodes("<content id=\"" + CONTENT + "\">");
        assertEquals(2, container.count(), "the guide's container count");
        assertEquals(3, content.count(), "the guide's content count");

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
    void withTheGuidesAdditionsVespaCloudsTestAndStagingZonesTakeThePackage(@TempDir Path dir) throws IOException {
        Path app = withTheGuidesAdditions(dir);
        for (Environment environment : List.of(Environment.test, Environment.staging)) {
            InMemoryProvisioner provisioner = provisioner(environment);
            build(app, cloudZone(environment), provisioner);
            assertRequested(cloudNodes("<container id=\"" + CONTAINER + "\">"), provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTAINER)));
            assertRequested(cloudNodes("<content id=\"" + CONTENT + "\">"), provisioner.provisioned().all().get(ClusterSpec.Id.from(CONTENT)));
        }
    }

    @Test
    void withTheGuidesAdditionsVespaCloudDevKeepsOneNodePerCluster(@TempDir Path dir) throws IOException {
        InMemoryProvisioner provisioner = provisioner(Environment.dev);
        VespaModel model = build(withTheGuidesAdditions(dir), cloudZone(Environment.dev), provisioner);
        assertOneNodePerCluster(model, provisioner);
    }

    @Test
    void asItIsThePackageDeploysToVespaCloudDevWithOneNodePerCluster(@TempDir Path dir) throws IOException {
        InMemoryProvisioner provisioner = provisioner(Environment.dev);
        VespaModel model = build(copy(dir), cloudZone(Environment.dev), provisioner);
        assertOneNodePerCluster(model, provisioner);
    }

    /** The hostalias <nodes>, without count: the config model itself asks for one node per cluster, not as required. */
    private static void assertOneNodePerCluster(VespaModel model, InMemoryProvisioner provisioner) {
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
    void asItIsThePackageIsRefusedInVespaCloudProduction(@TempDir Path dir) throws IOException {
        Path app = copy(dir);
        Files.writeString(app.resolve("deployment.xml"), guideBlock(b -> b.contains("<deployment")));
        var e = assertThrows(IllegalArgumentException.class,
                             () -> build(app, cloudZone(Environment.prod), provisioner(Environment.prod)));
        assertTrue(messages(e).contains("must have a <nodes count='N'> tag"), messages(e));
    }

    // ---- the package, with and without the guide's additions

    /** A copy of the built package with the guide's two services.xml blocks, its deployment.xml and a client certificate. */
    private static Path withTheGuidesAdditions(Path dir) throws IOException {
        Path app = copy(dir);
        Path services = app.resolve("services.xml");
        String xml = Files.readString(services);
        xml = insertBeforeNodes(xml, "<container id=\"" + CONTAINER + "\"", cloudNodes("<container id=\"" + CONTAINER + "\">").xml());
        xml = insertBeforeNodes(xml, "<content id=\"" + CONTENT + "\"", cloudNodes("<content id=\"" + CONTENT + "\">").xml());
        Files.writeString(services, xml);
        Files.writeString(app.resolve("deployment.xml"), guideBlock(b -> b.contains("<deployment")));
        return app;
    }

    private static String insertBeforeNodes(String services, String cluster, String nodes) {
        int start = services.indexOf(cluster);
        assertTrue(start >= 0, "services.xml has " + cluster);
        int at = services.indexOf("<nodes>", start);
        assertTrue(at >= 0, "services.xml has a <nodes> in " + cluster);
        return services.substring(0, at) + nodes + "\n        " + services.substring(at);
    }

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

    // ---- the guide's blocks

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

    record Nodes(String xml, int count, double vcpu, double memoryGb, double diskGb) {}

    private static final Pattern COUNT = Pattern.compile("<nodes deploy:cloud=\"[a-z ]+\"[^>]* count=\"(\\d+)\">");
    private static final Pattern RESOURCES = Pattern.compile("<resources vcpu=\"([0-9.]+)\" memory=\"([0-9.]+)Gb\" disk=\"([0-9.]+)Gb\"/>");

    /** The guide's block for the cluster in the marker comment on its first line, e.g. in <container id="dwell_container">. */
    private static Nodes cloudNodes(String cluster) {
        String block = guideBlock(b -> b.startsWith("<!--") && b.lines().findFirst().orElseThrow().contains(cluster));
        String xml = block.lines().skip(1).collect(Collectors.joining("\n"));
        Matcher count = COUNT.matcher(xml), resources = RESOURCES.matcher(xml);
        assertTrue(count.find(), "a <nodes deploy:cloud count> in " + xml);
        assertTrue(resources.find(), "<resources vcpu memory disk> in " + xml);
        return new Nodes(xml, Integer.parseInt(count.group(1)), Double.parseDouble(resources.group(1)),
                         Double.parseDouble(resources.group(2)), Double.parseDouble(resources.group(3)));
    }

    /** The guide's count and resources, asked for as required: Vespa's preprocessor marks a <nodes> that a deploy: attribute chose so. */
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
