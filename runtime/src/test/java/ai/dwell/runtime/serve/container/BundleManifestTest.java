package ai.dwell.runtime.serve.container;

import org.junit.jupiter.api.Test;

import java.util.Hashtable;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BundleManifestTest {

    private static BundleManifest manifest(String... headers) {
        Hashtable<String, String> table = new Hashtable<>();
        for (int i = 0; i < headers.length; i += 2) table.put(headers[i], headers[i + 1]);
        return BundleManifest.of(table);
    }

    @Test
    void importPackageNamesTheClausesPackagesNotTheirVersionRangesOrDirectives() {
        BundleManifest manifest = manifest("Import-Package",
                                           "com.yahoo.language;version=\"[1.0.0,2)\",a.b;c.d;version=\"[0.0.0,1)\"," +
                                           "e.f;resolution:=optional, g.h");
        assertEquals(Set.of("com.yahoo.language", "a.b", "c.d", "e.f", "g.h"), manifest.importedPackages());
        assertTrue(manifest.declaresImports());
    }

    @Test
    void bundleClassPathIsTheBundleItselfUnlessNamed() {
        assertEquals(List.of("."), manifest().classPath());
        assertFalse(manifest().declaresImports());
        assertEquals(List.of(".", "dependencies/lucene-core-9.12.3.jar", "lib/x.jar"),
                     manifest("Bundle-ClassPath", ".,dependencies/lucene-core-9.12.3.jar, lib/x.jar;x=1").classPath());
    }

    @Test
    void symbolicNameWithoutDirectives() {
        assertEquals("add-analysis-nori", manifest("Bundle-SymbolicName", "add-analysis-nori;singleton:=true").symbolicName());
    }

}
