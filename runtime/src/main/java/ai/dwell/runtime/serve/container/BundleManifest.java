package ai.dwell.runtime.serve.container;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The OSGi headers of an application bundle (a jar in the package's components/) that decide where its classes come
 * from: Bundle-ClassPath (the bundle's own entries, "." and the jars it embeds, as Vespa's bundle plugin writes
 * dependencies/x.jar for each compile-scope dependency) and Import-Package (the packages it takes from the platform).
 */
public record BundleManifest(Hashtable<String, String> headers, List<String> classPath, Set<String> importedPackages) {

    public static final String BUNDLE_CLASS_PATH = "Bundle-ClassPath";
    public static final String IMPORT_PACKAGE = "Import-Package";

    public BundleManifest {
        classPath = List.copyOf(classPath);
        importedPackages = Set.copyOf(importedPackages);
    }

    public static BundleManifest of(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            Hashtable<String, String> headers = new Hashtable<>();
            if (manifest != null)
                manifest.getMainAttributes().forEach((name, value) -> headers.put(name.toString(), value.toString()));
            return of(headers);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read the manifest of bundle " + jar, e);
        }
    }

    public static BundleManifest of(Hashtable<String, String> headers) {
        String classPath = headers.get(BUNDLE_CLASS_PATH);
        List<String> entries = new ArrayList<>();
        for (String clause : clauses(classPath == null ? "." : classPath))
            entries.add(clause.split(";")[0].trim());
        Set<String> imports = new LinkedHashSet<>();
        String importPackage = headers.get(IMPORT_PACKAGE);
        if (importPackage != null)
            for (String clause : clauses(importPackage))
                for (String part : clause.split(";")) {
                    String trimmed = part.trim();
                    if (trimmed.contains("=")) break; // an attribute or directive (version=..., resolution:=...): the names come first
                    if ( ! trimmed.isEmpty()) imports.add(trimmed);
                }
        return new BundleManifest(headers, entries, imports);
    }

    /** Whether this is an OSGi bundle whose own classes are loaded before the platform's (it declares what it imports). */
    public boolean declaresImports() { return headers.containsKey(IMPORT_PACKAGE); }

    /** Bundle-SymbolicName without its directives, or null if the jar has none. */
    public String symbolicName() {
        String symbolic = headers.get("Bundle-SymbolicName");
        return symbolic == null ? null : symbolic.split(";")[0].trim();
    }

    /** The comma-separated clauses of an OSGi header, commas inside quotes (version ranges) kept. */
    static List<String> clauses(String header) {
        List<String> clauses = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (char c : header.toCharArray()) {
            if (c == '"') quoted = ! quoted;
            if (c == ',' && ! quoted) {
                if ( ! current.toString().isBlank()) clauses.add(current.toString().trim());
                current.setLength(0);
            }
            else {
                current.append(c);
            }
        }
        if ( ! current.toString().isBlank()) clauses.add(current.toString().trim());
        return clauses;
    }

}
