package ai.dwell.runtime.serve.feed;

import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embeddings indexing keeps across restarts: texts embedded once are not embedded again when a new
 * runtime indexes the stored documents; a torn tail is cut off; another model's embeddings are not used.
 */
public class CachingEmbedderTest {

    private static final TensorType TYPE = TensorType.fromSpec("tensor<float>(x[4])");
    private static final Embedder.Context CONTEXT = new Embedder.Context("comment.embedding");

    @TempDir
    Path directory;

    @Test
    void textsEmbeddedBeforeARestartAreNotEmbeddedAgain() {
        Path file = directory.resolve("minilm.embeddings");
        CountingEmbedder first = new CountingEmbedder(1);
        CachingEmbedder before = CachingEmbedder.kept(first, 100, file);
        for (String text : List.of("a", "b", "c", "a")) before.embed(text, CONTEXT, TYPE);
        assertEquals(3, first.calls.get(), "each distinct text once");
        before.close();

        CountingEmbedder second = new CountingEmbedder(1);
        CachingEmbedder after = CachingEmbedder.kept(second, 1, file);
        assertEquals(0, second.calls.get(), "the file is read when the cache first misses, not before");
        for (String text : List.of("a", "b", "c")) assertEquals(first.vector(text), after.embed(text, CONTEXT, TYPE));
        int checking = 1; // the file is checked against the embedder with one of its texts
        assertEquals(checking, second.calls.get(), "nothing embedded again while the store is indexed");
        after.embed("d", CONTEXT, TYPE);
        assertEquals(checking + 1, second.calls.get(), "a new text is embedded, and kept");

        after.indexed(); // now only the in-memory LRU (capacity 1: "d") remains
        after.embed("a", CONTEXT, TYPE);
        assertEquals(checking + 2, second.calls.get());
        after.close();

        CountingEmbedder third = new CountingEmbedder(1);
        CachingEmbedder again = CachingEmbedder.kept(third, 100, file);
        for (String text : List.of("a", "b", "c", "d")) again.embed(text, CONTEXT, TYPE);
        assertEquals(1, third.calls.get(), "only the check: d was kept too (a twice, which reads as once)");
        again.close();
    }

    @Test
    void aTornTailIsCutOffAndAppendingGoesOnAfterIt() throws IOException {
        Path file = directory.resolve("minilm.embeddings");
        CachingEmbedder before = CachingEmbedder.kept(new CountingEmbedder(1), 100, file);
        before.embed("a", CONTEXT, TYPE);
        before.embed("b", CONTEXT, TYPE);
        before.close();
        long whole = Files.size(file);
        try (RandomAccessFile torn = new RandomAccessFile(file.toFile(), "rw")) { torn.setLength(whole - 3); } // b's record is torn

        CountingEmbedder embedder = new CountingEmbedder(1);
        CachingEmbedder after = CachingEmbedder.kept(embedder, 100, file);
        after.embed("a", CONTEXT, TYPE); // the first miss reads the file
        assertTrue(Files.size(file) < whole - 3, "the torn record is cut off");
        after.embed("b", CONTEXT, TYPE);
        assertEquals(2, embedder.calls.get(), "the check with a, and b again");
        after.close();
        assertEquals(whole, Files.size(file), "b appended after a, where it was");
    }

    @Test
    void aCorruptRecordIsNotIndexedAndIsCutOffWithWhatFollows() throws IOException {
        Path file = directory.resolve("minilm.embeddings");
        CachingEmbedder before = CachingEmbedder.kept(new CountingEmbedder(1), 100, file);
        before.embed("a", CONTEXT, TYPE);
        long afterA = Files.size(file);
        before.embed("b", CONTEXT, TYPE);
        long afterB = Files.size(file);
        before.embed("c", CONTEXT, TYPE);
        before.close();
        try (RandomAccessFile corrupt = new RandomAccessFile(file.toFile(), "rw")) { // b's last cell: it still decodes
            corrupt.seek(afterB - 2);
            corrupt.write(corrupt.readByte() ^ 0x40);
        }

        CountingEmbedder embedder = new CountingEmbedder(1);
        CachingEmbedder after = CachingEmbedder.kept(embedder, 100, file);
        assertEquals(embedder.vector("a"), after.embed("a", CONTEXT, TYPE)); // the first miss reads the file
        assertEquals(afterA, Files.size(file), "b's record and c's after it are cut off");
        for (String text : List.of("a", "b", "c"))
            assertEquals(embedder.vector(text), after.embed(text, CONTEXT, TYPE), "the embedder's vector for " + text);
        assertEquals(3, embedder.calls.get(), "the check with a, then b and c embedded again");
        after.close();
    }

    @Test
    void aFileOfAnotherFormatIsSetAside() throws IOException {
        Path file = directory.resolve("minilm.embeddings");
        Files.write(file, new byte[] { 0, 0, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 });
        CountingEmbedder embedder = new CountingEmbedder(1);
        CachingEmbedder after = CachingEmbedder.kept(embedder, 100, file);
        assertEquals(embedder.vector("a"), after.embed("a", CONTEXT, TYPE));
        assertEquals(1, embedder.calls.get());
        assertTrue(Files.exists(directory.resolve("minilm.embeddings.stale")));
        after.close();
    }

    @Test
    void anotherModelsEmbeddingsAreSetAside() {
        Path file = directory.resolve("minilm.embeddings");
        CachingEmbedder before = CachingEmbedder.kept(new CountingEmbedder(1), 100, file);
        before.embed("a", CONTEXT, TYPE);
        before.close();

        CountingEmbedder other = new CountingEmbedder(2); // another model: other vectors
        CachingEmbedder after = CachingEmbedder.kept(other, 100, file);
        Tensor embedded = after.embed("a", CONTEXT, TYPE);
        assertEquals(other.vector("a"), embedded);
        assertNotEquals(new CountingEmbedder(1).vector("a"), embedded);
        assertEquals(2, other.calls.get(), "the check, then a embedded again");
        assertTrue(Files.exists(directory.resolve("minilm.embeddings.stale")));
        after.close();
    }

    /** A deterministic embedder that counts its calls; the model number changes its vectors. */
    private static final class CountingEmbedder implements Embedder {
        final AtomicInteger calls = new AtomicInteger();
        private final int model;

        CountingEmbedder(int model) { this.model = model; }

        Tensor vector(String text) {
            IndexedTensor.Builder builder = IndexedTensor.Builder.of(TYPE);
            for (int i = 0; i < 4; i++) builder.cell((float) (text.hashCode() * model + i), i);
            return builder.build();
        }

        @Override public Tensor embed(String text, Context context, TensorType type) {
            calls.incrementAndGet();
            return vector(text);
        }
        @Override public List<Integer> embed(String text, Context context) { throw new UnsupportedOperationException(); }
        @Override public String decode(List<Integer> tokens, Context context) { throw new UnsupportedOperationException(); }
    }

}
