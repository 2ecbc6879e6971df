package ai.dwell.runtime.serve.deploy;

import com.yahoo.component.Vtag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A package is built with this Vespa's version (8.700.24), as the config server builds it: services.xml's
 * minimum-required-vespa-version, which sample-apps' multi-vector-indexing and vector-streaming-search set, was
 * compared with DeployState's default 1.0.0 and refused ("this Vespa version is 1.0.0").
 */
public class VespaVersionTest {

    @TempDir
    Path tmp;

    private Path app(String minimum) throws IOException {
        Files.writeString(tmp.resolve("services.xml"), """
                <services version="1.0" minimum-required-vespa-version="%s">
                  <container id="c" version="1.0"/>
                </services>
                """.formatted(minimum));
        return tmp;
    }

    @Test
    void theModelIsBuiltWithThisVespasVersion() throws IOException {
        assertEquals("8.700.24", Vtag.currentVersion.toFullString());
        ModelBuilder.build(app("8.338.38")); // vector-streaming-search's minimum
    }

    @Test
    void theServedCopyLeavesTheCheckedMinimumOut(@TempDir Path served) throws IOException {
        Path source = app("8.338.38");
        var model = ModelBuilder.build(source).model();
        ServedPackage.prepare(source, served.resolve("copy"), 0, model, PackageServices.of(model, source));
        String copy = Files.readString(served.resolve("copy").resolve("services.xml"));
        // Vespa's standalone container (com.yahoo.application.Application) builds its model with version 1.0.0
        assertFalse(copy.contains("minimum-required-vespa-version"), copy);
        assertTrue(Files.readString(source.resolve("services.xml")).contains("minimum-required-vespa-version=\"8.338.38\""), "the deployed package is unchanged");
    }

    @Test
    void aLaterMinimumIsRefusedNamingThisVersion() throws IOException {
        Exception e = assertThrows(Exception.class, () -> ModelBuilder.build(app("9.0.0")));
        assertTrue(e.getMessage().contains("minimum required Vespa version is specified as 9.0.0 in services.xml, this Vespa version is 8.700.24"),
                   e.getMessage());
    }

}
