package ai.dwell.runtime.serve.container;

import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.analysis.core.LowerCaseFilterFactory;
import org.apache.lucene.analysis.phonetic.PhoneticFilterFactory;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Bundle jars for tests: a manifest, entries, the runtime's Lucene jars to embed, and a factory class compiled here. */
final class TestBundles {

    static final String FACTORY = "dwelltest.filters.SuffixFactory";
    static final String FACTORY_SOURCE = """
            package dwelltest.filters;
            public class SuffixFactory extends org.apache.lucene.analysis.TokenFilterFactory {
                public static final String NAME = "dwellTestSuffix";
                public SuffixFactory() { throw defaultCtorException(); }
                public SuffixFactory(java.util.Map<String, String> args) { super(args); }
                @Override public org.apache.lucene.analysis.TokenStream create(org.apache.lucene.analysis.TokenStream input) { return input; }
            }
            """;

    private TestBundles() {}

    static Path luceneCore() { return jarOf(TokenFilterFactory.class); }
    static Path luceneAnalysisCommon() { return jarOf(LowerCaseFilterFactory.class); }
    static Path luceneAnalysisPhonetic() { return jarOf(PhoneticFilterFactory.class); }

    private static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
        catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The class file of {@link #FACTORY}, compiled against the runtime's lucene-core. */
    static byte[] compiledFactory(Path workDir) throws IOException {
        Path source = workDir.resolve("src/dwelltest/filters/SuffixFactory.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, FACTORY_SOURCE);
        Path classes = workDir.resolve("classes");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int rc = compiler.run(null, null, null, "-d", classes.toString(), "-cp", luceneCore().toString(), source.toString());
        if (rc != 0) throw new IllegalStateException("javac failed: " + rc);
        return Files.readAllBytes(classes.resolve("dwelltest/filters/SuffixFactory.class"));
    }

    /** Writes a jar with these main manifest headers and entries (name to bytes; a Path value is that file's bytes). */
    static Path jar(Path file, Map<String, String> headers, Map<String, Object> entries) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        headers.forEach((name, value) -> manifest.getMainAttributes().putValue(name, value));
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            for (var entry : entries.entrySet()) {
                jar.putNextEntry(new JarEntry(entry.getKey()));
                Object value = entry.getValue();
                if (value instanceof Path path) jar.write(Files.readAllBytes(path));
                else if (value instanceof String text) jar.write(text.getBytes(StandardCharsets.UTF_8));
                else jar.write((byte[]) value);
                jar.closeEntry();
            }
        }
        return file;
    }

    static Map<String, Object> entries(Object... nameAndValue) {
        Map<String, Object> entries = new LinkedHashMap<>();
        for (int i = 0; i < nameAndValue.length; i += 2) entries.put((String) nameAndValue[i], nameAndValue[i + 1]);
        return entries;
    }

}
