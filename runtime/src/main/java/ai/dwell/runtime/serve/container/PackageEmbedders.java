package ai.dwell.runtime.serve.container;

import ai.vespa.embedding.HuggingFaceEmbedder;
import ai.vespa.modelintegration.evaluator.EmbeddedOnnxRuntime;
import ai.vespa.modelintegration.evaluator.config.OnnxEvaluatorConfig;
import com.yahoo.config.ModelReference;
import com.yahoo.embedding.huggingface.HuggingFaceEmbedderConfig;
import com.yahoo.language.process.Embedder;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.container.component.Component;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The package's embedders, made from Vespa's model of it before its container runs, so that the
 * content nodes can index every stored document (and be ready) before the container answers its
 * first query. Each is Vespa's own embedder class with the config the container's gets, its model
 * files resolved to the package's. The container makes its own instances for query-time embed();
 * both embed a text identically.
 *
 * <p>Made for the kinds of embedder the runtime knows (hugging-face-embedder). A package with an
 * embedder of another kind gets none here, and its documents are indexed with the container's
 * embedders once it runs (it answers 503, no content nodes, until they are ready).
 */
public final class PackageEmbedders implements AutoCloseable {

    private static final Logger log = Logger.getLogger(PackageEmbedders.class.getName());

    private final Map<String, LazyEmbedder> embedders;
    private final OnnxRuntimeOnUse onnx;

    private PackageEmbedders(Map<String, LazyEmbedder> embedders, OnnxRuntimeOnUse onnx) {
        this.embedders = embedders;
        this.onnx = onnx;
    }

    /** The ONNX runtime the embedders share, made with the first of them. */
    private static final class OnnxRuntimeOnUse {

        private EmbeddedOnnxRuntime onnx;

        synchronized EmbeddedOnnxRuntime get() {
            if (onnx == null) onnx = new EmbeddedOnnxRuntime(new OnnxModelsConfig.Builder().build());
            return onnx;
        }

        synchronized void close() {
            if (onnx != null) onnx.deconstruct();
        }

    }

    /** The embedders of this container cluster by component id, or empty if one is of a kind not made here. */
    public static Optional<PackageEmbedders> of(VespaModel model, String containerCluster, Path packageDir) {
        var cluster = model.getContainerClusters().get(containerCluster);
        if (cluster == null) return Optional.empty();
        OnnxRuntimeOnUse onnx = new OnnxRuntimeOnUse();
        Map<String, LazyEmbedder> embedders = new LinkedHashMap<>();
        for (Component<?, ?> component : cluster.getAllComponents()) {
            String className = component.getClassId().getName();
            if ( ! isEmbedder(className)) continue;
            if ( ! className.equals(HuggingFaceEmbedder.class.getName())) {
                log.info("Embedder '" + component.getComponentId() + "' (" + className + ") is made by the container only: " +
                         "documents are indexed once it runs");
                return Optional.empty();
            }
            HuggingFaceEmbedderConfig config = model.getConfig(HuggingFaceEmbedderConfig.class, component.getConfigId());
            HuggingFaceEmbedderConfig resolved = new HuggingFaceEmbedderConfig.Builder(config)
                    .transformerModel(resolve(config.transformerModelReference(), packageDir))
                    .tokenizerPath(resolve(config.tokenizerPathReference(), packageDir))
                    .build();
            OnnxEvaluatorConfig evaluator = model.getConfig(OnnxEvaluatorConfig.class, component.getConfigId());
            // made when the content nodes first index a document with it: a start that indexes nothing loads no model
            embedders.put(component.getComponentId().stringValue(),
                          new LazyEmbedder(() -> new HuggingFaceEmbedder(onnx.get(), Embedder.Runtime.testInstance(), resolved,
                                                                         evaluator, ModelReference::value)));
        }
        return Optional.of(new PackageEmbedders(embedders, onnx));
    }

    public Map<String, Embedder> byId() { return java.util.Collections.unmodifiableMap(embedders); }

    /** Whether any embedder was made, i.e. used by the content nodes' indexing. */
    boolean anyMade() { return embedders.values().stream().anyMatch(LazyEmbedder::isMade); }

    @Override
    public void close() {
        embedders.values().forEach(LazyEmbedder::close);
        onnx.close();
    }

    /** A model file of the package as a resolved reference; models given by url are refused, naming it. */
    private static ModelReference resolve(ModelReference reference, Path packageDir) {
        if (reference.isResolved()) return reference;
        if (reference.path().isPresent()) return ModelReference.resolved(packageDir.resolve(reference.path().get().value()));
        throw new IllegalArgumentException("Model " + reference + ": models given by url or model id are not supported by the " +
                                           "local runtime; give the model as a path in the application package");
    }

    private static boolean isEmbedder(String className) {
        try {
            return Embedder.class.isAssignableFrom(Class.forName(className, false, PackageEmbedders.class.getClassLoader()));
        }
        catch (ClassNotFoundException | LinkageError e) {
            return false; // the package's own component classes live in its bundles, not on the runtime's class path
        }
    }

}
