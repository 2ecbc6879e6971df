package ai.dwell.runtime.serve.container;

import com.yahoo.language.Linguistics;
import com.yahoo.language.opennlp.OpenNlpLinguistics;
import com.yahoo.language.provider.DefaultLinguisticsProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static ai.dwell.runtime.serve.container.BundleComponentClasses.Kind.LINGUISTICS;
import static ai.dwell.runtime.serve.container.BundleComponentClasses.Kind.NOT_IN_BUNDLES;
import static ai.dwell.runtime.serve.container.BundleComponentClasses.Kind.OTHER;
import static ai.dwell.runtime.serve.container.BundleComponentClasses.Kind.UNKNOWN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A package whose own bundle holds a Linguistics extending Vespa's OpenNlpLinguistics (linguistics-asia's 06-opennlp-icu
 * and 07-opennlp-opencc, vespa-chinese-linguistics) is indexed with it, as the container injects it into the indexing
 * processor on Vespa; before this, indexing used Vespa's default OpenNLP while queries used the package's (its tw-001
 * indexed 手機殼, queried as 手机壳). The bundle's classes are told apart before the container runs.
 */
public class BundleComponentClassesTest {

    @TempDir static Path tmp;
    static Path packageDir;

    @BeforeAll
    static void bundle() throws IOException {
        Path src = tmp.resolve("src");
        write(src, "dwelltest/ling/FoldingLinguistics.java", """
                package dwelltest.ling;
                public class FoldingLinguistics extends com.yahoo.language.opennlp.OpenNlpLinguistics { }
                """);
        write(src, "dwelltest/ling/Plain.java", """
                package dwelltest.ling;
                public class Plain implements Runnable { public void run() { } }
                """);
        write(src, "dwelltest/embedded/Base.java", """
                package dwelltest.embedded;
                public class Base { }
                """);
        write(src, "dwelltest/ling/OnEmbedded.java", """
                package dwelltest.ling;
                public class OnEmbedded extends dwelltest.embedded.Base { }
                """);
        Path classes = tmp.resolve("classes");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        String classPath = jarOf(OpenNlpLinguistics.class) + File.pathSeparator + jarOf(Linguistics.class);
        List<String> args = new java.util.ArrayList<>(List.of("-d", classes.toString(), "-cp", classPath));
        try (var sources = Files.walk(src)) { sources.filter(Files::isRegularFile).forEach(f -> args.add(f.toString())); }
        assertEquals(0, compiler.run(null, null, null, args.toArray(new String[0])));
        packageDir = tmp.resolve("package");
        // the bundle holds its own classes but not dwelltest.embedded.Base (as if in a jar it embeds)
        TestBundles.jar(packageDir.resolve("components/test-bundle-deploy.jar"), Map.of("Bundle-SymbolicName", "test-bundle"),
                        TestBundles.entries("dwelltest/ling/FoldingLinguistics.class", classes.resolve("dwelltest/ling/FoldingLinguistics.class"),
                                            "dwelltest/ling/Plain.class", classes.resolve("dwelltest/ling/Plain.class"),
                                            "dwelltest/ling/OnEmbedded.class", classes.resolve("dwelltest/ling/OnEmbedded.class")));
    }

    @Test
    void aBundlesClassIsToldALinguisticsOrNotBeforeTheContainerRuns() {
        try (BundleComponentClasses bundles = BundleComponentClasses.of(packageDir)) {
            assertEquals(LINGUISTICS, bundles.kindOf("dwelltest.ling.FoldingLinguistics"));
            assertEquals(OTHER, bundles.kindOf("dwelltest.ling.Plain"));
            assertEquals(UNKNOWN, bundles.kindOf("dwelltest.ling.OnEmbedded"), "its superclass is in no bundle jar");
            assertEquals(NOT_IN_BUNDLES, bundles.kindOf("dwelltest.ling.Missing"));
            assertEquals(NOT_IN_BUNDLES, bundles.kindOf("com.yahoo.docprocs.indexing.IndexingProcessor"),
                         "a platform component the runtime does not hold (Vespa's model adds it for docproc)");
            assertEquals(LINGUISTICS, bundles.kindOf(OpenNlpLinguistics.class.getName()), "a platform class");
        }
    }

    @Test
    void indexingWaitsForTheContainersLinguisticsWhereThePackageMayDeclareOne() {
        String provider = DefaultLinguisticsProvider.class.getName();
        assertFalse(PackageLinguistics.declaresOwn(List.of(provider, "com.yahoo.search.handler.SearchHandler"), packageDir));
        assertFalse(PackageLinguistics.declaresOwn(List.of(provider, "dwelltest.ling.Plain"), packageDir), "a component of the bundle, no Linguistics");
        assertTrue(PackageLinguistics.declaresOwn(List.of(provider, "dwelltest.ling.Plain", "dwelltest.ling.FoldingLinguistics"), packageDir));
        assertTrue(PackageLinguistics.declaresOwn(List.of(provider, "dwelltest.ling.OnEmbedded"), packageDir), "cannot be told before the container runs");
        assertTrue(PackageLinguistics.declaresOwn(List.of(provider, OpenNlpLinguistics.class.getName()), packageDir), "01-opennlp-cjk's configured OpenNLP");
        assertFalse(PackageLinguistics.declaresOwn(List.of(provider), tmp.resolve("no-such-package")));
        // dwell's own package: the model's indexing processor is in no bundle of the package, so indexing need not wait
        assertFalse(PackageLinguistics.declaresOwn(List.of(provider, "com.yahoo.docprocs.indexing.IndexingProcessor",
                                                           "dwelltest.ling.Plain"), packageDir));
    }

    private static void write(Path src, String path, String text) throws IOException {
        Path file = src.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static String jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        }
        catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

}
