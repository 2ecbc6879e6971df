package ai.dwell.runtime.serve.deploy;

import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A document type in mode streaming is served (before, it was refused at deploy; before that, it deployed and every
 * put failed with 500 "No such chain: indexing" and every query with a 500 NullPointerException). Its string index
 * fields are tokenized when indexed, as Vespa's search visitor tokenizes them at query time; a streaming match mode
 * the engine does not honour is refused by name.
 */
public class StreamingModeTest {

    @TempDir
    Path app;

    private void write(String mode, String fields) throws IOException {
        Files.createDirectories(app.resolve("schemas"));
        Files.writeString(app.resolve("schemas/mail.sd"), """
                schema mail {
                    document mail {
                        field subject type string { indexing: index | summary }
                        field year type int { indexing: attribute | summary }
                        %s
                    }
                }
                """.formatted(fields));
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                  <container id="c" version="1.0"><search/><document-api/></container>
                  <content id="mail" version="1.0">
                    <min-redundancy>1</min-redundancy>
                    <documents><document type="mail" mode="%s"/><document-processing chain="indexing"/></documents>
                    <nodes><node distribution-key="0" hostalias="node1"/></nodes>
                  </content>
                </services>
                """.formatted(mode));
    }

    private IlscriptsConfig scripts(com.yahoo.vespa.model.VespaModel model) {
        return model.getConfig(IlscriptsConfig.class, "c/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor");
    }

    @Test
    void streamingIsServedAndItsTextFieldsTokenized() throws IOException {
        write("streaming", "");
        var model = ModelBuilder.build(app).model();
        PackageServices services = PackageServices.of(model, app);
        assertEquals(Map.of(), services.docprocChainsOfType(), "the indexing chain is the runtime's own");
        StreamingTypes streaming = StreamingTypes.of(model);
        assertEquals(Set.of("mail"), streaming.types());
        List<String> content = streaming.tokenizing(scripts(model)).ilscript(0).content();
        assertTrue(content.contains("clear_state | guard { input subject | tokenize normalize | index subject | summary subject; }"), content.toString());
        assertTrue(content.contains("clear_state | guard { input year | attribute year | summary year; }"), content.toString());
    }

    @Test
    void indexModeScriptsAreUnchanged() throws IOException {
        write("index", "");
        var model = ModelBuilder.build(app).model();
        PackageServices.of(model, app);
        assertEquals(Set.of(), StreamingTypes.of(model).types());
        assertEquals(scripts(model), StreamingTypes.of(model).tokenizing(scripts(model)));
    }

    @Test
    void aMatchModeTheEngineDoesNotHonourIsRefusedByName() throws IOException {
        for (String mode : List.of("prefix", "substring", "suffix", "exact")) {
            write("streaming", "field body type string { indexing: index | summary \n match: " + mode + " }");
            var e = assertThrows(InvalidApplicationException.class, () -> StreamingTypes.of(ModelBuilder.build(app).model()));
            assertTrue(e.getMessage().contains("field 'body' with match mode '" + mode + "' is not supported by this content engine in streaming mode"),
                       e.getMessage());
        }
    }

}
