package ai.dwell.runtime.serve.feed;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pins the bytes of an embeddings file, so that one written by an earlier version still loads: the
 * expected bytes were produced by the code before its framing moved to ai.dwell.runtime.format.
 */
public class EmbeddingFileBytesTest {

    private static final TensorType TYPE = TensorType.fromSpec("tensor<float>(x[3])");
    private static final EmbeddingFile.Key FIRST = new EmbeddingFile.Key("héllo", "embedding", TYPE);
    private static final EmbeddingFile.Key SECOND = new EmbeddingFile.Key("b", "other", TYPE);
    private static final String BYTES =
            "64776c6500000002" +
            "0000003a2949c81800000024656d62656464696e670a74656e736f723c666c6f61743e28785b335d290a68c3a96c6c6f" +
            "0601010178033fc00000c00000003e800000" +
            "000000314a222ad40000001b6f746865720a74656e736f723c666c6f61743e28785b335d290a62" +
            "060101017803000000003f80000040000000";

    @TempDir
    Path directory;

    @Test
    void bytesAreUnchanged() throws IOException {
        Path file = directory.resolve("e.embeddings");
        EmbeddingFile.Loaded loaded = EmbeddingFile.open(file, embedding -> true);
        loaded.file().append(FIRST, Tensor.from(TYPE, "[1.5, -2.0, 0.25]"));
        loaded.file().append(SECOND, Tensor.from(TYPE, "[0, 1, 2]"));
        loaded.file().close();
        assertEquals(BYTES, HexFormat.of().formatHex(Files.readAllBytes(file)));
    }

    @Test
    void fileWrittenBeforeIsRead() throws IOException {
        Path file = directory.resolve("e.embeddings");
        Files.write(file, HexFormat.of().parseHex(BYTES));
        EmbeddingFile.Loaded loaded = EmbeddingFile.open(file, embedding -> true);
        loaded.file().close();
        assertEquals(Map.of(FIRST, Tensor.from(TYPE, "[1.5, -2.0, 0.25]"),
                            SECOND, Tensor.from(TYPE, "[0, 1, 2]")),
                     loaded.embeddings());
        assertEquals(BYTES.length() / 2, Files.size(file));
    }

}
