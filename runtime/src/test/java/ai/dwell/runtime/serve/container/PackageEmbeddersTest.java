package ai.dwell.runtime.serve.container;

import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.embedding.HuggingFaceEmbedder;
import ai.vespa.modelintegration.evaluator.EmbeddedOnnxRuntime;
import ai.vespa.modelintegration.evaluator.config.OnnxEvaluatorConfig;
import com.yahoo.config.ModelReference;
import com.yahoo.embedding.huggingface.HuggingFaceEmbedderConfig;
import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedders the runtime makes for the content nodes' indexing (dwell's package: minilm): none loads its model
 * until it embeds, and then it embeds as Vespa's HuggingFaceEmbedder made directly from the same config does.
 */
public class PackageEmbeddersTest {

    private static final TensorType TYPE = TensorType.fromSpec("tensor<float>(x[384])");
    private static final Embedder.Context CONTEXT = new Embedder.Context("comment.embedding");

    @Test
    void anEmbedderIsMadeWhenItFirstEmbedsAndEmbedsAsVespasOwn() {
        try (PackageEmbedders embedders = PackageEmbedders.of(DwellPackage.model(), "dwell_container", DwellPackage.dir()).orElseThrow()) {
            assertEquals(java.util.Set.of("minilm"), embedders.byId().keySet());
            assertFalse(embedders.anyMade(), "no model is loaded before a document is indexed");

            Tensor lazy = embedders.byId().get("minilm").embed("the best comment of the thread", CONTEXT, TYPE);
            assertTrue(embedders.anyMade());
            assertEquals(direct().embed("the best comment of the thread", CONTEXT, TYPE), lazy);
        }
    }

    /** Vespa's embedder made from the model's config of minilm, its files the package's. */
    private static Embedder direct() {
        var model = DwellPackage.model();
        String configId = "dwell_container/component/minilm";
        HuggingFaceEmbedderConfig config = model.getConfig(HuggingFaceEmbedderConfig.class, configId);
        HuggingFaceEmbedderConfig resolved = new HuggingFaceEmbedderConfig.Builder(config)
                .transformerModel(ModelReference.resolved(DwellPackage.dir().resolve("embedder/minilm-l6-v2-int8.onnx")))
                .tokenizerPath(ModelReference.resolved(DwellPackage.dir().resolve("embedder/tokenizer.json")))
                .build();
        return new HuggingFaceEmbedder(new EmbeddedOnnxRuntime(new OnnxModelsConfig.Builder().build()), Embedder.Runtime.testInstance(),
                                       resolved, model.getConfig(OnnxEvaluatorConfig.class, configId), ModelReference::value);
    }

}
