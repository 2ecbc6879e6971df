package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.SchemaConfigs;
import ai.vespa.modelintegration.evaluator.EmbeddedOnnxRuntime;
import ai.vespa.modelintegration.evaluator.OnnxEvaluatorOptions;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.JsonFormat;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.config.search.core.RankingConstantsConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * What ranking for one schema loads once: its rank profiles, constant tensors (RankingConstantsConfig:
 * JSON, .json.lz4 not supported, or Vespa binary .tbf files) and ONNX models with their thread settings.
 * Closing it releases the ONNX sessions.
 */
public final class RankAssets implements AutoCloseable {

    private final Map<String, RankProfile> profiles = new LinkedHashMap<>();
    private final Map<String, Tensor> constants = new LinkedHashMap<>();
    private final Map<String, OnnxModel> models = new LinkedHashMap<>();

    public RankAssets(SchemaConfigs schema, Path packageDir) {
        for (RankProfilesConfig.Rankprofile profile : schema.rankProfiles().rankprofile())
            profiles.put(profile.name(), new RankProfile(profile));
        for (RankingConstantsConfig.Constant constant : schema.rankingConstants().constant())
            constants.put(constant.name(), readConstant(packageDir.resolve(constant.fileref().value()), TensorType.fromSpec(constant.type())));
        if ( ! schema.onnxModels().model().isEmpty()) {
            EmbeddedOnnxRuntime runtime = new EmbeddedOnnxRuntime(schema.onnxModels());
            for (OnnxModelsConfig.Model model : schema.onnxModels().model()) {
                Map<String, String> inputs = new LinkedHashMap<>();
                model.input().forEach(input -> inputs.put(input.name(), input.source()));
                Map<String, String> outputs = new LinkedHashMap<>();
                model.output().forEach(output -> outputs.put(output.as(), output.name()));
                var evaluator = runtime.evaluatorOf(packageDir.resolve(model.fileref().value()).toString(), options(model));
                models.put(model.name(), new OnnxModel(model.name(), evaluator, inputs, outputs));
            }
        }
    }

    public Map<String, RankProfile> profiles() { return profiles; }
    public Optional<RankProfile> profile(String name) { return Optional.ofNullable(profiles.get(name)); }
    public Optional<Tensor> constant(String name) { return Optional.ofNullable(constants.get(name)); }
    Optional<OnnxModel> model(String name) { return Optional.ofNullable(models.get(name)); }
    Map<String, OnnxModel> models() { return models; }

    @Override
    public void close() {
        models.values().forEach(model -> model.evaluator().close());
    }

    private static OnnxEvaluatorOptions options(OnnxModelsConfig.Model model) {
        var defaults = OnnxEvaluatorOptions.createDefault();
        return new OnnxEvaluatorOptions(OnnxEvaluatorOptions.ExecutionMode.fromString(model.stateless_execution_mode()),
                                        model.stateless_interop_threads() > 0 ? model.stateless_interop_threads() : defaults.interOpThreads(),
                                        model.stateless_intraop_threads() > 0 ? model.stateless_intraop_threads() : defaults.intraOpThreads(),
                                        defaults.gpuDeviceNumber(), defaults.gpuDeviceRequired(), defaults.batchingMaxSize(),
                                        defaults.batchingMaxDelay(), defaults.numModelInstances(), defaults.modelConfigOverride(),
                                        defaults.availableProcessors());
    }

    static Tensor readConstant(Path file, TensorType type) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            String name = file.getFileName().toString();
            if (name.endsWith(".gz") || name.endsWith(".gzip")) {
                try (var in = new GZIPInputStream(Files.newInputStream(file))) { bytes = in.readAllBytes(); }
                name = name.substring(0, name.lastIndexOf('.'));
            }
            if (name.endsWith(".json")) return JsonFormat.decode(type, bytes);
            if (name.endsWith(".tbf")) return TypedBinaryFormat.decode(Optional.of(type), new GrowableByteBuffer(ByteBuffer.wrap(bytes)));
            throw new IllegalArgumentException("Constant file " + file + ": only .json and .tbf (optionally gzipped) are supported");
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read constant " + file, e);
        }
    }

}
