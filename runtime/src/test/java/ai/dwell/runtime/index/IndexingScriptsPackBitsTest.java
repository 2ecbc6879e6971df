package ai.dwell.runtime.index;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.tensor.Tensor;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The indexing expressions of binary quantization as the runtime runs them (Vespa's indexing language): pack_bits into
 * int8 cells, of a vector and of each chunk of a mixed tensor, and the built-in chunkers that {@code chunk} names.
 */
public class IndexingScriptsPackBitsTest {

    @Test
    void packBitsAndChunkRunAsVespasIndexingLanguageDefinesThem(@TempDir Path tmp) throws Exception {
        ContentClusterConfig cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), """
                schema doc {
                    document doc {
                        field bits type tensor<float>(x[16]) { indexing: summary }
                        field chunk_bits type tensor<float>(chunk{},x[8]) { indexing: summary }
                        field text type string { indexing: summary }
                    }
                    field packed type tensor<int8>(x[2]) {
                        indexing: input bits | pack_bits | attribute
                        attribute { distance-metric: hamming }
                    }
                    field chunks_packed type tensor<int8>(chunk{},x[1]) {
                        indexing: input chunk_bits | pack_bits | attribute
                        attribute { distance-metric: hamming }
                    }
                    field sentences type array<string> {
                        indexing: input text | chunk sentence | summary
                    }
                    field pieces type array<string> {
                        indexing: input text | chunk fixed-length 12 | summary
                    }
                }
                """);
        IlscriptsConfig config = DwellPackage.model(tmp.resolve("app"))
                .getConfig(IlscriptsConfig.class, "default/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor");
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        IndexingScripts scripts = new IndexingScripts(config, types, new SimpleLinguistics(), Map.of());

        Document document = new Document(types.getDocumentType("doc"), new DocumentId("id:test:doc::1"));
        // 1000 0001 | 1011 0000 (a value above 0 is a 1 bit, the first the highest): 0x81 = -127, 0xb0 = -80
        document.setFieldValue("bits", new TensorFieldValue(Tensor.from("tensor<float>(x[16]):[1,0,0,0,0,0,0,1, 1,-2,0.5,3,0,0,0,0]")));
        document.setFieldValue("chunk_bits", new TensorFieldValue(Tensor.from(
                "tensor<float>(chunk{},x[8]):{a:[0,0,0,0,0,0,1,1], b:[1,1,1,1,1,1,1,1]}")));
        document.setFieldValue("text", new StringFieldValue("First sentence here. And a second one."));
        Document processed = scripts.process(document);

        assertEquals(Tensor.from("tensor<int8>(x[2]):[-127,-80]"), ((TensorFieldValue) processed.getFieldValue("packed")).getTensor().get());
        assertEquals(Tensor.from("tensor<int8>(chunk{},x[1]):{a:[3], b:[-1]}"),
                     ((TensorFieldValue) processed.getFieldValue("chunks_packed")).getTensor().get());
        Array<?> sentences = (Array<?>) processed.getFieldValue("sentences");
        assertEquals(2, sentences.size(), sentences.toString());
        Array<?> pieces = (Array<?>) processed.getFieldValue("pieces");
        StringBuilder joined = new StringBuilder();
        for (int i = 0; i < pieces.size(); i++) joined.append(pieces.get(i).toString());
        assertEquals("First sentence here. And a second one.", joined.toString(), "fixed-length chunks cover the text: " + pieces);
        assertTrue(pieces.size() > 1, pieces.toString());
    }

}
