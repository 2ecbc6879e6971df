package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.feed.EmbeddingFile.Key;
import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static java.util.stream.Collectors.toMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embeddings file is bounded: a compaction keeps the newest record of each of the newest keys, and what was
 * appended while it ran; a crash in the middle of one leaves the file as it was; the caching embedder compacts
 * its file once it holds more than twice what is worth keeping.
 */
public class EmbeddingFileCompactionTest {

    private static final TensorType TYPE = TensorType.fromSpec("tensor<float>(x[2])");

    @TempDir
    Path directory;

    private static Key key(String text) { return new Key(text, "comment.embedding", TYPE); }

    private static Tensor vector(float value) {
        return IndexedTensor.Builder.of(TYPE).cell(value, 0).cell(-value, 1).build();
    }

    private static Map<Key, Tensor> read(Path file) {
        EmbeddingFile.Loaded loaded = EmbeddingFile.open(file, entry -> true);
        loaded.file().close();
        return loaded.embeddings();
    }

    @Test
    void aCompactionKeepsTheNewestRecordOfTheNewestKeysAndWhatWasAppendedMeanwhile() throws IOException {
        Path path = directory.resolve("minilm.embeddings");
        EmbeddingFile file = EmbeddingFile.open(path, entry -> true).file();
        for (int i = 0; i < 10; i++) file.append(key("text " + i), vector(i));
        file.append(key("text 3"), vector(33)); // embedded again after it left the in-memory cache
        file.append(key("text 9"), vector(99));
        assertEquals(12, file.records());
        long before = Files.size(path);

        EmbeddingFile.Compaction compaction = file.beginCompaction();
        compaction.rewritePrefix(3); // the newest distinct keys: text 9, text 3, text 8
        file.append(key("text 10"), vector(10)); // while the compaction runs
        file.append(key("text 8"), vector(88));
        compaction.finish();
        assertEquals(5, file.records());
        file.append(key("text 11"), vector(11)); // appending goes on in the compacted file
        file.close();

        assertTrue(Files.size(path) < before);
        assertFalse(Files.exists(path.resolveSibling("minilm.embeddings.tmp")));
        assertEquals(Map.of(key("text 9"), vector(99), key("text 3"), vector(33), key("text 8"), vector(88),
                            key("text 10"), vector(10), key("text 11"), vector(11)),
                     read(path));
    }

    @Test
    void aCrashInTheMiddleOfACompactionLeavesTheFileAsItWas() throws IOException {
        Path path = directory.resolve("minilm.embeddings");
        EmbeddingFile file = EmbeddingFile.open(path, entry -> true).file();
        for (int i = 0; i < 10; i++) file.append(key("text " + i), vector(i));
        EmbeddingFile.Compaction compaction = file.beginCompaction();
        compaction.rewritePrefix(2); // and the process dies: the rewritten file is never renamed
        file.close();
        assertTrue(Files.exists(path.resolveSibling("minilm.embeddings.tmp")));

        Map<Key, Tensor> expected = IntStream.range(0, 10).boxed().collect(toMap(i -> key("text " + i), i -> vector(i)));
        assertEquals(expected, read(path));
        assertFalse(Files.exists(path.resolveSibling("minilm.embeddings.tmp")), "the interrupted rewrite is deleted");
    }

    @Test
    void theCachingEmbeddersFileStaysWithinTwiceWhatIsWorthKeeping() {
        Path path = directory.resolve("minilm.embeddings");
        Embedder embedder = new Embedder() {
            @Override public Tensor embed(String text, Context context, TensorType type) { return vector(text.length()); }
            @Override public List<Integer> embed(String text, Context context) { throw new UnsupportedOperationException(); }
            @Override public String decode(List<Integer> tokens, Context context) { throw new UnsupportedOperationException(); }
        };
        long storedDocuments = 8; // more than the in-memory capacity, so the bound is the store's
        CachingEmbedder caching = CachingEmbedder.kept(embedder, 5, path, () -> storedDocuments);
        Embedder.Context context = new Embedder.Context("comment.embedding");
        for (int i = 0; i < 200; i++) {
            caching.embed("x".repeat(i + 1), context, TYPE);
            if (i % 10 == 9) EmbeddingFile.awaitCompactions(); // each compaction runs before the next is due
        }
        EmbeddingFile.awaitCompactions();
        caching.close();

        Map<Key, Tensor> kept = read(path);
        assertTrue(kept.size() >= storedDocuments && kept.size() <= 2 * storedDocuments, kept.size() + " embeddings kept");
        for (int i = 199; i > 199 - storedDocuments; i--)
            assertEquals(vector(i + 1), kept.get(key("x".repeat(i + 1))), "the newest texts are kept");
    }

}
