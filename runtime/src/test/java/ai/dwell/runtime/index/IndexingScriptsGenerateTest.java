package ai.dwell.runtime.index;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.language.process.FieldGenerator;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An indexing statement with {@code generate} (a field generator component, sample-apps' field-generator) runs the
 * generator of that id the indexing is given (the container's FieldGenerator components, as Vespa's IndexingProcessor
 * gets them); without any it is refused naming the expression, not with the indexing language's "No generators
 * provided" (500), which names neither. A field named like the keyword is no generate.
 */
public class IndexingScriptsGenerateTest {

    @Test
    void generateIsRefusedNamingIt(@TempDir Path tmp) throws Exception {
        DocumentTypeManager types = docTypes(tmp);
        IlscriptsConfig generating = scripts("clear_state | guard { input text | generate questions_generator | summary generated; }");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> new IndexingScripts(generating, types, new SimpleLinguistics(), Map.of()));
        assertTrue(e.getMessage().contains("'generate'") && e.getMessage().contains("generate questions_generator")
                   && e.getMessage().contains(" of doc:"), e.getMessage());
        IlscriptsConfig plain = scripts("clear_state | guard { input generated | summary generated; }");
        assertDoesNotThrow(() -> new IndexingScripts(plain, types, new SimpleLinguistics(), Map.of()));
    }

    @Test
    void generateRunsTheGeneratorOfItsIdOnTheInput(@TempDir Path tmp) throws Exception {
        DocumentTypeManager types = docTypes(tmp);
        IlscriptsConfig generating = scripts("clear_state | guard { input text | generate questions_generator | summary generated; }");
        List<String> prompts = new ArrayList<>();
        FieldGenerator questions = (prompt, context) -> {
            prompts.add(prompt.asString() + " -> " + context.getTargetType().getName());
            return new StringFieldValue("Q: " + prompt.asString());
        };
        IndexingScripts scripts = new IndexingScripts(generating, types, new SimpleLinguistics(), Map.of(),
                                                      Map.of("questions_generator", questions));
        Document document = new Document(types.getDocumentType("doc"), "id:test:doc::1");
        document.setFieldValue("text", new StringFieldValue("a text"));
        Document processed = scripts.process(document);
        assertEquals("Q: a text", processed.getFieldValue("generated").toString());
        assertEquals(List.of("a text -> string"), prompts);
    }

    private static IlscriptsConfig scripts(String statement) {
        return new IlscriptsConfig.Builder()
                .ilscript(new IlscriptsConfig.Ilscript.Builder().doctype("doc").docfield("text").docfield("generated")
                                                                .content(statement))
                .build();
    }


    /** The types of a one-node cluster of schema doc: a text field, and a summary field a statement may generate. */
    private static DocumentTypeManager docTypes(Path tmp) throws Exception {
        ContentClusterConfig cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), """
                schema doc {
                    document doc {
                        field text type string { indexing: summary | index }
                        field generated type string { indexing: summary }
                    }
                }
                """);
        return new DocumentTypeManager(cluster.documentManager());
    }

}
