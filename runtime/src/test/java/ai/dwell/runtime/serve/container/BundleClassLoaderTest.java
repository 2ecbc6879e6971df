package ai.dwell.runtime.serve.container;

import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.util.Version;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static ai.dwell.runtime.serve.container.TestBundles.entries;
import static ai.dwell.runtime.serve.container.TestBundles.jar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BundleClassLoaderTest {

    private static final ClassLoader PLATFORM = BundleClassLoaderTest.class.getClassLoader();

    @Test
    void aPackageTheBundleEmbedsAndDoesNotImportIsTheBundlesOwnAnImportedOneThePlatforms(@TempDir Path tmp) throws Exception {
        Path bundle = jar(tmp.resolve("app.jar"),
                          Map.of("Bundle-SymbolicName", "app",
                                 "Bundle-ClassPath", ".,dependencies/lucene-core.jar",
                                 "Import-Package", "org.apache.lucene.util;version=\"[9.12,10)\",java.util"),
                          entries("dependencies/lucene-core.jar", TestBundles.luceneCore()));
        try (BundleClassLoader loader = BundleClassLoader.of(List.of(bundle), PLATFORM, tmp.resolve("work"))) {
            Class<?> writer = loader.loadClass(IndexWriter.class.getName());
            assertSame(loader, writer.getClassLoader(), "org.apache.lucene.index is embedded and not imported: the bundle's");
            assertNotSame(IndexWriter.class, writer);
            assertSame(Version.class, loader.loadClass(Version.class.getName()), "org.apache.lucene.util is imported: the platform's");
            assertSame(String.class, loader.loadClass("java.lang.String"));
            assertSame(BundleClassLoaderTest.class, loader.loadClass(BundleClassLoaderTest.class.getName()),
                       "a package the bundle lacks comes from the platform");
            assertTrue(loader.getResource("org/apache/lucene/index/IndexWriter.class").toString().contains("/work/"),
                       "a resource of an own package is the bundle's (unpacked under work/)");
        }
    }

    @Test
    void aJarWithoutImportPackageIsLoadedPlatformFirstAsVespasStandaloneContainerDoes(@TempDir Path tmp) throws Exception {
        Path bundle = jar(tmp.resolve("plain.jar"),
                          Map.of("Bundle-ClassPath", ".,dependencies/lucene-core.jar"),
                          entries("dependencies/lucene-core.jar", TestBundles.luceneCore()));
        try (BundleClassLoader loader = BundleClassLoader.of(List.of(bundle), PLATFORM, tmp.resolve("work"))) {
            assertSame(IndexWriter.class, loader.loadClass(IndexWriter.class.getName()));
        }
    }

    @Test
    void luceneSpiOfTheBundlesLuceneFindsTheBundlesFactoriesAndNoPlatformClass(@TempDir Path tmp) throws Exception {
        Path bundle = jar(tmp.resolve("analysis.jar"),
                          Map.of("Bundle-SymbolicName", "analysis",
                                 "Bundle-ClassPath", ".,dependencies/lucene-core.jar,dependencies/lucene-analysis-common.jar," +
                                                     "dependencies/lucene-analysis-phonetic.jar",
                                 "Import-Package", "java.util"),
                          entries("dwelltest/filters/SuffixFactory.class", TestBundles.compiledFactory(tmp.resolve("javac")),
                                  "META-INF/services/org.apache.lucene.analysis.TokenFilterFactory", TestBundles.FACTORY + "\n",
                                  "dependencies/lucene-core.jar", TestBundles.luceneCore(),
                                  "dependencies/lucene-analysis-common.jar", TestBundles.luceneAnalysisCommon(),
                                  "dependencies/lucene-analysis-phonetic.jar", TestBundles.luceneAnalysisPhonetic()));
        try (BundleClassLoader loader = BundleClassLoader.of(List.of(bundle), PLATFORM, tmp.resolve("work"))) {
            Class<?> factories = loader.loadClass(TokenFilterFactory.class.getName());
            assertSame(loader, factories.getClassLoader());
            Class<?> own = (Class<?>) factories.getMethod("lookupClass", String.class).invoke(null, "dwellTestSuffix");
            assertEquals(TestBundles.FACTORY, own.getName());
            assertSame(loader, own.getClassLoader());
            Class<?> lowercase = (Class<?>) factories.getMethod("lookupClass", String.class).invoke(null, "lowercase");
            assertSame(loader, lowercase.getClassLoader(), "lucene-analysis-common's factories from the bundle's own copy");
            assertTrue(factories.isAssignableFrom(lowercase));
            Class<?> phonetic = (Class<?>) factories.getMethod("lookupClass", String.class).invoke(null, "phonetic");
            assertSame(loader, phonetic.getClassLoader(), "an embedded module's factory, of the bundle's Lucene");
            assertTrue(factories.isAssignableFrom(phonetic));
            // the runtime's own Lucene knows nothing of the bundle's factory
            assertThrows(IllegalArgumentException.class, () -> TokenFilterFactory.lookupClass("dwellTestSuffix"));
        }
    }

    @Test
    void aDirectoryOnTheBundleClassPathIsRefusedByNameAMissingJarSkipped(@TempDir Path tmp) throws Exception {
        Path withDirectory = jar(tmp.resolve("dir.jar"),
                                 Map.of("Bundle-ClassPath", ".,classes/", "Import-Package", "java.util"),
                                 entries("classes/", new byte[0]));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> BundleClassLoader.of(List.of(withDirectory), PLATFORM, tmp.resolve("work")));
        assertTrue(e.getMessage().contains("'classes/'"), e.getMessage());

        Path missing = jar(tmp.resolve("missing.jar"),
                           Map.of("Bundle-ClassPath", ".,dependencies/absent.jar", "Import-Package", "java.util"),
                           entries("a/B.txt", "b"));
        try (BundleClassLoader loader = BundleClassLoader.of(List.of(missing), PLATFORM, tmp.resolve("work"))) {
            assertEquals(1, loader.getURLs().length);
        }
    }

    @Test
    void closingDeletesTheUnpackedJars(@TempDir Path tmp) throws IOException {
        Path bundle = jar(tmp.resolve("app.jar"),
                          Map.of("Bundle-ClassPath", ".,dependencies/lucene-core.jar", "Import-Package", "java.util"),
                          entries("dependencies/lucene-core.jar", TestBundles.luceneCore()));
        Path work = tmp.resolve("work");
        BundleClassLoader loader = BundleClassLoader.of(List.of(bundle), PLATFORM, work);
        try (var unpacked = Files.list(work)) { assertEquals(1, unpacked.count()); }
        loader.close();
        try (var unpacked = Files.list(work)) { assertFalse(unpacked.findAny().isPresent()); }
    }

    @Test
    void theUnpackedJarsOfAProcessNoLongerRunningAreDeletedThoseOfALiveOneKept(@TempDir Path tmp) throws IOException {
        Path work = tmp.resolve("work");
        long dead = new ProcessBuilder("true").start().onExit().join().pid();
        Path stale = Files.createDirectories(work.resolve("bundles-" + dead + "-123/0/dependencies"));
        Files.writeString(stale.resolve("x.jar"), "x");
        Path live = Files.createDirectories(work.resolve("bundles-" + ProcessHandle.current().pid() + "-456"));
        Path other = Files.createDirectories(work.resolve("something-else"));
        BundleClassLoader.removeStale(work);
        assertFalse(Files.exists(work.resolve("bundles-" + dead + "-123")));
        assertTrue(Files.exists(live));
        assertTrue(Files.exists(other));
    }

}
