package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.config.model.api.ConfigChangeAction;
import com.yahoo.config.model.api.ConfigChangeReindexAction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A redeploy reports what its change needs on a Vespa cluster, as Vespa's change validators find it. */
public class ChangeActionsTest {

    @Test
    void theSamePackageNeedsNothingAndAChangedFieldIsReported(@TempDir Path tmp) throws IOException {
        ModelBuilder.Built first = ModelBuilder.build(DwellPackage.dir());
        assertEquals(List.of(), first.actions(), "a first deploy");
        assertEquals(List.of(), ModelBuilder.build(DwellPackage.dir(), Optional.of(first.model())).actions(), "nothing changed");

        Path changed = DwellPackage.copyTo(tmp.resolve("changed"));
        Path schema = changed.resolve("schemas/comment.sd");
        String text = Files.readString(schema);
        String before = "        field author_id type string {\n            indexing: summary | attribute\n        }";
        assertTrue(text.contains(before), "the schema's author_id as this test knows it");
        Files.writeString(schema, text.replace(before, "        field author_id type string {\n            indexing: summary | attribute\n            attribute: fast-search\n        }"));
        List<ConfigChangeAction> actions = ModelBuilder.build(changed, Optional.of(first.model())).actions();
        assertEquals(1, actions.size(), actions.toString());
        assertEquals(ConfigChangeAction.Type.RESTART, actions.get(0).getType());
        assertTrue(actions.get(0).getMessage().contains("Field 'author_id' changed: add attribute 'fast-search'"), actions.get(0).getMessage());
        assertEquals("dwell", actions.get(0).clusterId().value());

        // a change a Vespa config server refuses without a validation override is refused here too, naming it
        Path stemmed = DwellPackage.copyTo(tmp.resolve("stemmed"));
        Path stemmedSchema = stemmed.resolve("schemas/comment.sd");
        Files.writeString(stemmedSchema, Files.readString(stemmedSchema).replace("            index: enable-bm25\n", "            index: enable-bm25\n            stemming: none\n"));
        InvalidApplicationException refused = assertThrows(InvalidApplicationException.class,
                                                           () -> ModelBuilder.build(stemmed, Optional.of(first.model())));
        assertTrue(refused.getMessage().contains("Field 'text' changed: stemming: 'best' -> 'none'")
                   && refused.getMessage().contains("<allow until='yyyy-mm-dd'>indexing-change</allow> to validation-overrides.xml"), refused.getMessage());
        // and with the override, it is accepted, and what it needs is reported: the comments indexed again
        Files.writeString(stemmed.resolve("validation-overrides.xml"),
                          "<validation-overrides>\n  <allow until='" + LocalDate.now(ZoneOffset.UTC).plusDays(1) + "'>indexing-change</allow>\n</validation-overrides>\n");
        List<ConfigChangeAction> allowed = ModelBuilder.build(stemmed, Optional.of(first.model())).actions();
        assertEquals(1, allowed.size(), allowed.toString());
        assertTrue(allowed.get(0) instanceof ConfigChangeReindexAction, allowed.toString());
        assertEquals("comment", ((ConfigChangeReindexAction) allowed.get(0)).getDocumentType());
        assertEquals("indexing-change", ((ConfigChangeReindexAction) allowed.get(0)).name());
    }

}
