package com.yahoo.container.standalone;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.config.ConfigInstance;
import com.yahoo.config.ModelReference;
import com.yahoo.config.UrlReference;
import com.yahoo.embedding.ColBertEmbedderConfig;
import com.yahoo.embedding.SpladeEmbedderConfig;
import com.yahoo.container.di.config.Subscriber;
import com.yahoo.vespa.config.ConfigKey;
import com.yahoo.vespa.config.ConfigPayload;
import com.yahoo.vespa.config.search.DispatchConfig;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A config whose models are given by url is refused with the runtime's own message, naming the first url the applier
 * resolves, not Vespa's applier's "Not able to create config builder for payload ..." around it. The dispatcher's
 * config is the model's but for its warm-up.
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

    @Test
    void theDispatcherGetsTheModelsConfigButNoWarmup() throws Exception {
        VespaModel model = DwellPackage.model();
        String id = "dwell_container/component/dispatcher.dwell";
        DispatchConfig fromModel = model.getConfig(DispatchConfig.class, id);
        assertEquals(5.0, fromModel.warmuptime(), "Vespa's model gives an indexed cluster's dispatcher 5 s of warm-up");

        ConfigKey<DispatchConfig> key = new ConfigKey<>(DispatchConfig.class, id);
        Subscriber subscriber = new StandaloneSubscriberFactory(model).getSubscriber(Set.of(key), "test");
        assertEquals(0, subscriber.waitNextGeneration(true));
        DispatchConfig served = (DispatchConfig) subscriber.config().get(key);
        subscriber.close();

        assertEquals(0.0, served.warmuptime());
        DispatchConfig servedWithModelsWarmup = new DispatchConfig(new DispatchConfig.Builder(served).warmuptime(fromModel.warmuptime()));
        assertEquals(payload(fromModel), payload(servedWithModelsWarmup));
    }

    private static String payload(ConfigInstance config) { return ConfigPayload.fromInstance(config).toString(); }

}
