package ai.dwell.runtime.serve.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A document type in mode streaming is refused at deploy, naming it (sample-apps' vector-streaming-search deployed,
 * then every put failed with 500 "No such chain: indexing" and every query with a 500 NullPointerException).
 */
public class StreamingModeTest {

    @TempDir
    Path app;

    private void write(String mode) throws IOException {
        Files.createDirectories(app.resolve("schemas"));
        Files.writeString(app.resolve("schemas/mail.sd"), """
                schema mail {
                    document mail {
                        field subject type string { indexing: index | summary }
                    }
                }
                """);
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                  <container id="c" version="1.0"><search/><document-api/></container>
                  <content id="mail" version="1.0">
                    <min-redundancy>1</min-redundancy>
                    <documents><document type="mail" mode="%s"/></documents>
                    <nodes><node distribution-key="0" hostalias="node1"/></nodes>
                  </content>
                </services>
                """.formatted(mode));
    }

    @Test
    void streamingIsRefusedByName() throws IOException {
        write("streaming");
        var e = assertThrows(InvalidApplicationException.class, () -> PackageServices.of(ModelBuilder.build(app).model(), app));
        assertTrue(e.getMessage().contains("document type(s) ['mail'] in mode 'streaming': streaming search is not supported"), e.getMessage());
    }

    @Test
    void indexIsServed() throws IOException {
        write("index");
        PackageServices.of(ModelBuilder.build(app).model(), app);
    }

}
