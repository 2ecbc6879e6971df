package ai.dwell.application;

import com.yahoo.vespa.config.content.StorDistributionConfig;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.content.core.BucketspacesConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The built package (target/application) as Vespa's config model builds and validates it on
 * deploy: layout, document types, derived rank profiles and ONNX settings.
 */
public class PackageValidationIT {

    private static final String COMMENT = "dwell/search/cluster.dwell/comment";

    @Test
    void deploysToAMultiNodeLayout() {
        VespaModel model = DwellApplication.model();
        assertEquals(6, model.getHosts().size(), "hosts.xml: admin, 2 containers, 3 content nodes");
        assertEquals(2, model.getContainerClusters().get("dwell_container").getContainers().size());

        StorDistributionConfig distribution = DwellApplication.config(StorDistributionConfig.class, "dwell");
        assertEquals(2, distribution.redundancy());
        assertEquals(3, distribution.group(0).nodes().size());
    }

    @Test
    void authorsAndModelsAreGlobal() {
        BucketspacesConfig spaces = DwellApplication.config(BucketspacesConfig.class, "dwell");
        Map<String, String> spaceOf = spaces.documenttype().stream()
                .collect(Collectors.toMap(BucketspacesConfig.Documenttype::name, BucketspacesConfig.Documenttype::bucketspace));
        assertEquals(Map.of("comment", "default", "author", "global", "rankingmodel", "global"), spaceOf);
    }

    @Test
    void rankProfilesAreDerivedAsDesigned() {
        RankProfilesConfig profiles = DwellApplication.config(RankProfilesConfig.class, COMMENT);
        Map<String, Map<String, String>> properties = profiles.rankprofile().stream()
                .collect(Collectors.toMap(RankProfilesConfig.Rankprofile::name,
                                          p -> p.fef().property().stream()
                                                .collect(Collectors.toMap(RankProfilesConfig.Rankprofile.Fef.Property::name,
                                                                          RankProfilesConfig.Rankprofile.Fef.Property::value,
                                                                          (a, b) -> a + " " + b))));
        assertTrue(properties.keySet().containsAll(java.util.Set.of("freshness", "neural", "neural_onnx", "text")));

        Map<String, String> neural = properties.get("neural");
        assertEquals("2000", neural.get("vespa.hitcollector.heapsize"), "rerank-count");
        assertEquals("rankingExpression(baseline)", neural.get("vespa.rank.firstphase"));
        assertEquals("rankingExpression(nn_score)", neural.get("vespa.rank.secondphase"));
        assertEquals(TensorType.fromSpec("tensor<float>(x[9],h1[9])"), TensorType.fromSpec(neural.get("vespa.type.query.W_0")));
        assertEquals(TensorType.fromSpec("tensor<float>(h2[9],o[1])"), TensorType.fromSpec(neural.get("vespa.type.query.W_2")));
        assertTrue(neural.get("vespa.match.feature").contains("rankingExpression(nn_input)"), neural.get("vespa.match.feature"));
        assertTrue(neural.get("vespa.match.feature").contains("query(model_version)"));

        Map<String, String> onnx = properties.get("neural_onnx");
        assertEquals("2000", onnx.get("vespa.hitcollector.heapsize"));
        assertEquals("created_at", onnx.get("vespa.matchphase.degradation.attribute"));
        assertEquals("false", onnx.get("vespa.matchphase.degradation.ascendingorder"));
    }

    @Test
    void onnxModelRunsWithItsOwnThreadSettings() {
        OnnxModelsConfig models = DwellApplication.config(OnnxModelsConfig.class, COMMENT);
        OnnxModelsConfig.Model model = models.model().stream().filter(m -> m.name().equals("dwell_nn")).findFirst().orElseThrow();
        assertEquals(1, model.stateless_intraop_threads());
        assertEquals(1, model.stateless_interop_threads());
        assertEquals("sequential", model.stateless_execution_mode().toString());
        assertEquals("features", model.input(0).name());
        assertEquals("rankingExpression(onnx_features)", model.input(0).source());
    }

    @Test
    void anImportOfAMissingAuthorFieldIsRefusedWithVespasMessage(@TempDir Path copy) throws IOException {
        copyPackage(copy);
        Path schema = copy.resolve("schemas/comment.sd");
        Files.writeString(schema, Files.readString(schema).replace(
                "import field author_ref.reputation as author_reputation {}",
                "import field author_ref.karma as author_reputation {}"));
        var e = assertThrows(IllegalArgumentException.class, () -> DwellApplication.build(copy));
        System.out.println(messages(e));
        assertTrue(messages(e).contains("karma"), messages(e));
    }

    @Test
    void aWeightOfTheWrongShapeIsRefusedWithVespasMessage(@TempDir Path copy) throws IOException {
        copyPackage(copy);
        Path schema = copy.resolve("schemas/comment.sd");
        Files.writeString(schema, Files.readString(schema).replace(
                "query(W_1) tensor<float>(h1[9],h2[9])", "query(W_1) tensor<float>(h1[9],h2[5])"));
        var e = assertThrows(IllegalArgumentException.class, () -> DwellApplication.build(copy));
        System.out.println(messages(e));
        assertTrue(messages(e).contains("w1"), messages(e));
    }

    private static void copyPackage(Path target) throws IOException {
        Path source = DwellApplication.packageDir();
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(to);
                else Files.copy(file, to);
            }
        }
    }

    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) b.append(t.getMessage()).append(" | ");
        return b.toString();
    }

}
