package ai.dwell.runtime.serve.llm;

import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.llm.InferenceParameters;
import ai.vespa.llm.clients.LlmLocalClientConfig;
import ai.vespa.llm.clients.LocalLLM;
import ai.vespa.llm.completion.Completion;
import ai.vespa.llm.completion.StringPrompt;
import com.yahoo.config.ModelReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Vespa's LocalLLM (model-integration, llama.cpp through jllama on the runtime's class path) built from its config with
 * a GGUF model by path: tests/sample_apps/gguf_llm_standin.py's random-weight llama model, written here with python3
 * (the script needs only the standard library).
 */
class LocalLlmTest {

    private static final String PROMPT = "What was the Manhattan Project?";
    /** {@code complete(PROMPT, 24)} of tests/sample_apps/gguf_llm_standin.py: the greedy completion computed in numpy. */
    private static final String EXPECTED = "gBZaHrgBZaHjO)>2n[W\\W\\W\\";

    @TempDir
    static Path tmp;
    private static LocalLLM llm;

    @BeforeAll
    static void load() throws Exception {
        Path model = tmp.resolve("llm.gguf");
        Process writer = new ProcessBuilder("python3", DwellPackage.root().resolve("tests/sample_apps/gguf_llm_standin.py").toString(),
                                            model.toString()).inheritIO().start();
        assertEquals(0, writer.waitFor(), "the stand-in's writer");
        llm = new LocalLLM(new LlmLocalClientConfig.Builder().model(ModelReference.resolved(model))
                                   .contextSize(1024).maxTokens(24).threads(1).useGpu(false).build());
    }

    @AfterAll
    static void close() {
        if (llm != null) llm.deconstruct();
    }

    private static InferenceParameters greedy() {
        return new InferenceParameters(Map.of("temperature", "0", "seed", "42")::get);
    }

    @Test
    void completesAPromptAsTheModelComputesItGreedily() {
        List<Completion> completions = llm.complete(StringPrompt.from(PROMPT), greedy());
        assertEquals(1, completions.size());
        assertEquals(Completion.FinishReason.stop, completions.get(0).finishReason());
        assertEquals(EXPECTED, completions.get(0).text());
        assertEquals(EXPECTED, llm.complete(StringPrompt.from(PROMPT), greedy()).get(0).text(), "deterministic");
    }

    @Test
    void streamsTheSameTokensAsync() throws Exception {
        List<String> tokens = new ArrayList<>();
        var reason = llm.completeAsync(StringPrompt.from(PROMPT), greedy(), c -> tokens.add(c.text())).get();
        assertEquals(Completion.FinishReason.stop, reason);
        assertEquals(EXPECTED, String.join("", tokens));
        assertEquals(24, tokens.stream().filter(token -> ! token.isEmpty()).count(), "a token each: " + tokens);
    }

}
