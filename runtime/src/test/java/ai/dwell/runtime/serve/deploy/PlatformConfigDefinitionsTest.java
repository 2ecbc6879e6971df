package ai.dwell.runtime.serve.deploy;

import com.yahoo.vespa.config.ConfigDefinitionKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The platform's config definitions come from the configdefinitions/ directories of the class path's jars, keyed by
 * the namespace their package line gives and the file's name, the first jar's winning.
 */
public class PlatformConfigDefinitionsTest {

    @Test
    void lucenesAnalysisDefinitionIsOnTheClassPath() {
        var definitions = PlatformConfigDefinitions.ofClassPath();
        var lucene = definitions.get(new ConfigDefinitionKey("lucene-analysis", "com.yahoo.language.lucene"));
        assertNotNull(lucene, "lucene-linguistics' definition");
        assertNotNull(lucene.getCNode().getChild("configDir"), "its path field");
        assertNotNull(lucene.getCNode().getChild("analysis"), "its map of analyzers");
    }

    @Test
    void definitionsAreKeyedByTheirPackageAndNameAndTheFirstJarWins(@TempDir Path tmp) throws IOException {
        Path first = jar(tmp.resolve("a.jar"), "configdefinitions/my-thing.def", "package=ai.example\nsize int default=1\n");
        Path second = jar(tmp.resolve("b.jar"), "configdefinitions/my-thing.def", "package=ai.example\nother string default=\"x\"\n");
        Path nested = jar(tmp.resolve("c.jar"), "configdefinitions/sub/ignored.def", "package=ai.example\nx int default=1\n");
        var definitions = PlatformConfigDefinitions.read(String.join(java.io.File.pathSeparator,
                                                                     first.toString(), second.toString(), nested.toString(), tmp.toString()));
        assertEquals(1, definitions.getConfigDefinitions().size());
        var thing = definitions.get(new ConfigDefinitionKey("my-thing", "ai.example"));
        assertNotNull(thing.getCNode().getChild("size"), "the first jar's");
        assertNull(thing.getCNode().getChild("other"), "not the second's");
        assertNull(definitions.get(new ConfigDefinitionKey("my-thing", "other.namespace")));
    }

    private static Path jar(Path file, String entry, String content) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out)) {
            jar.putNextEntry(new JarEntry(entry));
            jar.write(content.getBytes(StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return file;
    }

}
