package ai.dwell.runtime.serve.container;

import com.yahoo.application.container.impl.ClassLoaderOsgiFramework;
import org.apache.lucene.index.IndexWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWiring;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static ai.dwell.runtime.serve.container.TestBundles.entries;
import static ai.dwell.runtime.serve.container.TestBundles.jar;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runtime's standalone framework (in the place of Vespa's class of the same name): bundles as the container sees them. */
class ClassLoaderOsgiFrameworkTest {

    @Test
    void anInstalledBundleAnswersFromItsManifestAndLoadsFromItsClassPath(@TempDir Path tmp) throws Exception {
        Path jar = jar(tmp.resolve("app.jar"),
                       Map.of("Bundle-SymbolicName", "my-app;singleton:=true", "Bundle-Version", "1.2.3",
                              "Bundle-ClassPath", ".,dependencies/lucene-core.jar", "Import-Package", "java.util"),
                       entries("dependencies/lucene-core.jar", TestBundles.luceneCore()));
        ClassLoaderOsgiFramework framework = new ClassLoaderOsgiFramework();
        assertEquals(1, framework.bundles().size(), "the system bundle");
        List<Bundle> bundles = framework.installBundle(jar.toUri().toString());
        assertEquals(2, bundles.size());
        Bundle bundle = bundles.get(1);
        assertEquals("my-app", bundle.getSymbolicName());
        assertEquals(new Version(1, 2, 3), bundle.getVersion());
        assertEquals("1.2.3", bundle.getHeaders().get("Bundle-Version"));
        assertEquals(Bundle.ACTIVE, bundle.getState());
        assertEquals(0, bundle.adapt(BundleRevision.class).getTypes(), "not a fragment");

        Class<?> writer = bundle.loadClass(IndexWriter.class.getName());
        ClassLoader loader = bundle.adapt(BundleWiring.class).getClassLoader();
        assertInstanceOf(BundleClassLoader.class, loader);
        assertSame(loader, writer.getClassLoader());
        assertSame(writer, framework.bundles().get(0).loadClass(IndexWriter.class.getName()), "all bundles share one loader");

        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> bundle.getEntry("x"));
        assertTrue(e.getMessage().contains("Bundle.getEntry"), e.getMessage());
        framework.stop();
    }

    @Test
    void withoutBundlesTheSystemBundleLoadsFromThePlatform() throws Exception {
        ClassLoaderOsgiFramework framework = new ClassLoaderOsgiFramework();
        assertSame(IndexWriter.class, framework.bundles().get(0).loadClass(IndexWriter.class.getName()));
        assertSame(framework.bundles().get(0), framework.bundleContext().getBundle());
    }

}
