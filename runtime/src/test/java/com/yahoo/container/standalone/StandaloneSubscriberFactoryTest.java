package com.yahoo.container.standalone;

import com.yahoo.config.ModelReference;
import com.yahoo.config.UrlReference;
import com.yahoo.embedding.ColBertEmbedderConfig;
import com.yahoo.embedding.SpladeEmbedderConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A config whose models are given by url is refused with the runtime's own message, naming the first url the applier
 * resolves, not Vespa's applier's "Not able to create config builder for payload ..." around it.
 */
class StandaloneSubscriberFactoryTest {

    private static final String TOKENIZER = "https://huggingface.co/colbert-ir/colbertv2.0/raw/main/tokenizer.json";
    private static final String MODEL = "https://huggingface.co/colbert-ir/colbertv2.0/resolve/main/model.onnx";

    @Test
    void aColBertModelByUrlIsRefusedByName() {
        ColBertEmbedderConfig config = new ColBertEmbedderConfig.Builder()
                .tokenizerPath(ModelReference.unresolved(new UrlReference(TOKENIZER)))
                .transformerModel(ModelReference.unresolved(new UrlReference(MODEL)))
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneSubscriberFactory.withModelsResolved(ColBertEmbedderConfig.class, config));
        assertEquals("Model url '" + TOKENIZER + "': models given by url are not supported by the local runtime; " +
                     "give the model as a path in the application package", e.getMessage());
    }

    @Test
    void aSpladeModelByUrlIsRefusedByName() {
        SpladeEmbedderConfig config = new SpladeEmbedderConfig.Builder()
                .tokenizerPath(ModelReference.unresolved(new UrlReference(TOKENIZER)))
                .transformerModel(ModelReference.unresolved(new UrlReference(MODEL)))
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> StandaloneSubscriberFactory.withModelsResolved(SpladeEmbedderConfig.class, config));
        assertEquals("Model url '" + TOKENIZER + "': models given by url are not supported by the local runtime; " +
                     "give the model as a path in the application package", e.getMessage());
    }

}
