package ai.dwell.runtime;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks the structure of the runtime's sources (src/main/java) as runtime/README.md describes it: no
 * cycle between packages, each layer imports only layers below it, and the query core (match, rank) is
 * free of the search protocol's wire format.
 */
public class LayeringTest {

    private static final String ROOT = "ai.dwell.runtime";
    private static final Path SOURCES = Path.of("src", "main", "java");

    /**
     * The layers, lowest first: a package of a layer (the first name under ai.dwell.runtime; the runtime's
     * main class is in the top one, "") may import packages of its own layer and of lower ranks. Layers of
     * the same rank are independent of each other. A layer listed here need not exist.
     */
    private static final Map<String, Integer> RANKS = Map.of("format", 0,
                                                             "storage", 1,
                                                             "index", 1,
                                                             "match", 2,
                                                             "rank", 3,
                                                             "engine", 4,
                                                             "serve", 5,
                                                             "", 6);

    private static final List<String> WIRE_FORMAT = List.of("ai.vespa.searchlib.searchprotocol", "com.google.protobuf");

    private final PackageGraph graph = PackageGraph.read(ROOT, SOURCES);

    @Test
    void theSourcesAreRead() {
        assertTrue(graph.packages().containsAll(Set.of(ROOT + ".storage", ROOT + ".index", ROOT + ".match",
                                                       ROOT + ".rank", ROOT + ".serve", ROOT + ".serve.feed")),
                   "Expected the runtime's packages in " + SOURCES.toAbsolutePath() + ", found " + graph.packages());
    }

    @Test
    void noPackageCycle() {
        Optional<List<String>> cycle = graph.cycle();
        assertTrue(cycle.isEmpty(), () -> "Package cycle: " + graph.describe(cycle.get()));
    }

    @Test
    void layersImportOnlyLowerLayers() {
        List<String> violations = new ArrayList<>();
        for (String packageName : graph.packages())
            if ( ! RANKS.containsKey(layerOf(packageName)))
                violations.add(packageName + " is in no layer: give '" + layerOf(packageName) + "' a rank in " + getClass().getSimpleName());
        graph.edges().forEach((from, targets) -> targets.forEach((to, files) -> {
            String fromLayer = layerOf(from), toLayer = layerOf(to);
            if (fromLayer.equals(toLayer) || ! RANKS.containsKey(fromLayer) || ! RANKS.containsKey(toLayer)) return;
            if (RANKS.get(toLayer) >= RANKS.get(fromLayer))
                violations.add(from + " imports " + to + ", a layer that is not below it, in " + files);
        }));
        assertEquals(List.of(), violations);
    }

    @Test
    void matchAndRankDoNotImportTheWireFormat() {
        List<String> violations = new ArrayList<>();
        for (String layer : List.of("match", "rank"))
            for (PackageGraph.Source source : graph.sourcesUnder(ROOT + "." + layer))
                for (String reference : source.references())
                    if (WIRE_FORMAT.stream().anyMatch(prefix -> reference.startsWith(prefix + ".")))
                        violations.add(source.file().getFileName() + " refers to " + reference);
        assertEquals(List.of(), violations);
    }

    @Test
    void aCycleIsFoundAndReportedAsAPath() {
        PackageGraph cyclic = new PackageGraph(ROOT, List.of(
                PackageGraph.parse(Path.of("A.java"), "package ai.dwell.runtime.a;\nimport ai.dwell.runtime.b.B;\n"),
                PackageGraph.parse(Path.of("B.java"), "package ai.dwell.runtime.b;\n// ai.dwell.runtime.a.A in a comment is no reference\n" +
                                                      "class B { Object c = new ai.dwell.runtime.b.c.C(); }\n"),
                PackageGraph.parse(Path.of("C.java"), "package ai.dwell.runtime.b.c;\nimport static ai.dwell.runtime.a.A.f;\n" +
                                                      "class C { String s = \"ai.dwell.runtime.b.B\"; }\n")));
        assertEquals(Optional.of(List.of(ROOT + ".a", ROOT + ".b", ROOT + ".b.c", ROOT + ".a")), cyclic.cycle());
        assertEquals("ai.dwell.runtime.a -> ai.dwell.runtime.b (A.java) -> ai.dwell.runtime.b.c (B.java) -> ai.dwell.runtime.a (C.java)",
                     cyclic.describe(cyclic.cycle().get()));
        PackageGraph acyclic = new PackageGraph(ROOT, List.of(
                PackageGraph.parse(Path.of("A.java"), "package ai.dwell.runtime.a;\nimport ai.dwell.runtime.b.B;\n"),
                PackageGraph.parse(Path.of("B.java"), "package ai.dwell.runtime.b;\n/* import ai.dwell.runtime.a.A; */\n")));
        assertEquals(Optional.empty(), acyclic.cycle());
    }

    /** The first name of the package under the root ("" for the root itself). */
    private static String layerOf(String packageName) {
        if (packageName.equals(ROOT)) return "";
        String below = packageName.substring(ROOT.length() + 1);
        int dot = below.indexOf('.');
        return dot < 0 ? below : below.substring(0, dot);
    }

}
