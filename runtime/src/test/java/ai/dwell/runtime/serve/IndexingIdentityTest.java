package ai.dwell.runtime.serve;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A type that embeds is indexed again when its embedders change, not when another file of the package does: not for a
 * new ranking model, and not for the build-meta.json every build writes (each deploy of a fresh build indexed every
 * comment of W1 again, 10 minutes). Where the package declares a linguistics component, its config and the files of its
 * configDir count for every type.
 */
public class IndexingIdentityTest {

    private static final IlscriptsConfig SCRIPTS = new IlscriptsConfig.Builder()
            .ilscript(new IlscriptsConfig.Ilscript.Builder().doctype("comment").docfield("text")
                              .content("input text | embed minilm | attribute embedding"))
            .ilscript(new IlscriptsConfig.Ilscript.Builder().doctype("author").docfield("author_id")
                              .content("input author_id | attribute author_id"))
            .build();

    @Test
    void onlyTheEmbeddersFilesAndComponentsCount(@TempDir Path tmp) throws IOException {
        Path dir = DwellPackage.copyTo(tmp.resolve("package"));
        Map<String, String> before = IndexingIdentity.of(SCRIPTS, dir);

        Files.writeString(dir.resolve("build-meta.json"), "{\"buildTime\": 1}");
        append(dir.resolve("models/dwell_nn.onnx"));
        assertEquals(before, IndexingIdentity.of(SCRIPTS, dir), "a new build, a new ranking model: the same index");

        append(dir.resolve("embedder/tokenizer.json"));
        Map<String, String> retokenized = IndexingIdentity.of(SCRIPTS, dir);
        assertNotEquals(before.get("comment"), retokenized.get("comment"), "another tokenizer for the embedder");
        assertEquals(before.get("author"), retokenized.get("author"), "a type that does not embed is not affected");

        Path services = dir.resolve("services.xml");
        String servicesText = Files.readString(services);
        Files.writeString(services, servicesText.replace("<impressionLog>logs/dwell/impressions.jsonl</impressionLog>",
                                                         "<impressionLog>logs/dwell/elsewhere.jsonl</impressionLog>")
                                                .replace("<maxAgeMillis>1000</maxAgeMillis>", "<maxAgeMillis>500</maxAgeMillis>")
                                    + "\n<!-- changed -->\n");
        assertEquals(retokenized, IndexingIdentity.of(SCRIPTS, dir), "searchers' configs and comments: the same index");

        String embedder = servicesText.substring(servicesText.indexOf("<component id=\"minilm\""));
        embedder = embedder.substring(0, embedder.indexOf("</component>"));
        assertTrue(embedder.contains("<normalize>true</normalize>"), embedder);
        Files.writeString(services, servicesText.replace(embedder, embedder.replace("<normalize>true</normalize>", "<normalize>false</normalize>")));
        assertNotEquals(retokenized.get("comment"), IndexingIdentity.of(SCRIPTS, dir).get("comment"), "the embedder's config");
    }

    @Test
    void theComponentsOfServicesXmlAreItsComponentElements() {
        String services = """
                <services><container id="c" version="1.0">
                  <search><chain id="default"><searcher id="s"><config name="x"><a>1</a></config></searcher></chain></search>
                  <component id="e" type="hugging-face-embedder"><transformer-model path="models/e.onnx"/></component>
                </container></services>
                """;
        String components = IndexingIdentity.components(services);
        assertTrue(components.contains("hugging-face-embedder") && components.contains("models/e.onnx"), components);
        assertEquals(components, IndexingIdentity.components(services.replace("<a>1</a>", "<a>2</a>")));
        assertEquals("<not xml", IndexingIdentity.components("<not xml"), "what cannot be parsed counts whole");
    }

    @Test
    void aPackagesLinguisticsConfigAndItsConfigDirFilesCountForEveryType(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("services.xml"), """
                <services><container id="c" version="1.0">
                  <component id="linguistics" class="com.yahoo.language.lucene.LuceneLinguistics" bundle="lucene-linguistics">
                    <config name="com.yahoo.language.lucene.lucene-analysis"><configDir>lucene</configDir></config>
                  </component>
                </container></services>
                """);
        Files.createDirectories(dir.resolve("lucene/en"));
        Files.writeString(dir.resolve("lucene/en/stopwords.txt"), "the\n");
        Files.writeString(dir.resolve("other.txt"), "x");
        Map<String, String> before = IndexingIdentity.of(SCRIPTS, dir);

        append(dir.resolve("other.txt"));
        assertEquals(before, IndexingIdentity.of(SCRIPTS, dir), "a file outside the configDir");

        append(dir.resolve("lucene/en/stopwords.txt"));
        Map<String, String> restopped = IndexingIdentity.of(SCRIPTS, dir);
        assertNotEquals(before.get("author"), restopped.get("author"), "another stop list: every type's strings are tokenized again");
        assertNotEquals(before.get("comment"), restopped.get("comment"));

        Path services = dir.resolve("services.xml");
        Files.writeString(services, Files.readString(services).replace("<configDir>", "<!-- another analyzer --><configDir>"));
        assertNotEquals(restopped.get("author"), IndexingIdentity.of(SCRIPTS, dir).get("author"), "services.xml configures the analyzers");
    }

    @Test
    void aLinguisticsOfThePackagesOwnBundleCountsWithItsBundles(@TempDir Path dir) throws IOException {
        // the shape of linguistics-asia's 06-opennlp-icu: a component named by its class, from the package's bundle
        Files.writeString(dir.resolve("services.xml"), """
                <services><container id="c" version="1.0">
                  <component id="ai.vespa.examples.linguistics.asia.IcuLinguistics" bundle="linguistics-asia-icu"/>
                </container></services>
                """);
        Files.createDirectories(dir.resolve("components"));
        Files.writeString(dir.resolve("components/linguistics-asia-icu-deploy.jar"), "a bundle");
        Map<String, String> before = IndexingIdentity.of(SCRIPTS, dir);
        assertNotEquals(IndexingIdentity.of(SCRIPTS, empty(dir.resolve("default"))).get("author"), before.get("author"),
                        "not Vespa's default linguistics");

        append(dir.resolve("components/linguistics-asia-icu-deploy.jar"));
        assertNotEquals(before.get("author"), IndexingIdentity.of(SCRIPTS, dir).get("author"), "another build of the bundle's code");
    }

    private static Path empty(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("services.xml"), "<services><container id=\"c\" version=\"1.0\"/></services>");
        return dir;
    }

    private static void append(Path file) throws IOException {
        Files.write(file, new byte[] { 1 }, StandardOpenOption.APPEND);
    }

}
