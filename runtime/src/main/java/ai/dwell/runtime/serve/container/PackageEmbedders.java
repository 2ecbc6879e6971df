package ai.dwell.runtime.serve.container;

import ai.vespa.embedding.HuggingFaceEmbedder;
import ai.vespa.modelintegration.evaluator.EmbeddedOnnxRuntime;
import ai.vespa.modelintegration.evaluator.config.OnnxEvaluatorConfig;
import com.yahoo.component.AbstractComponent;
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

    private final Map<String, Embedder> embedders;
    private final EmbeddedOnnxRuntime onnx;

    private PackageEmbedders(Map<String, Embedder> embedders, EmbeddedOnnxRuntime onnx) {
        this.embedders = embedders;
        this.onnx = onnx;
    }

    /** The embedders of this container cluster by component id, or empty if one is of a kind not made here. */
    public static Optional<PackageEmbedders> of(VespaModel model, String containerCluster, Path packageDir) {
        var cluster = model.getContainerClusters().get(containerCluster);
        if (cluster == null) return Optional.empty();
        EmbeddedOnnxRuntime onnx = null;
        Map<String, Embedder> embedders = new LinkedHashMap<>();
        for (Component<?, ?> component : cluster.getAllComponents()) {
            String className = component.getClassId().getName();
            if ( ! isEmbedder(className)) continue;
            if ( ! className.equals(HuggingFaceEmbedder.class.getName())) {
                log.info("Embedder '" + component.getComponentId() + "' (" + className + ") is made by the container only: " +
                         "documents are indexed once it runs");
                close(embedders, onnx);
                return Optional.empty();
            }
            if (onnx == null) onnx = new EmbeddedOnnxRuntime(new OnnxModelsConfig.Builder().build());
            HuggingFaceEmbedderConfig config = model.getConfig(HuggingFaceEmbedderConfig.class, component.getConfigId());
            HuggingFaceEmbedderConfig resolved = new HuggingFaceEmbedderConfig.Builder(config)
                    .transformerModel(resolve(config.transformerModelReference(), packageDir))
                    .tokenizerPath(resolve(config.tokenizerPathReference(), packageDir))
                    .build();
            embedders.put(component.getComponentId().stringValue(),
                          new HuggingFaceEmbedder(onnx, Embedder.Runtime.testInstance(), resolved,
                                                  model.getConfig(OnnxEvaluatorConfig.class, component.getConfigId()),
                                                  ModelReference::value));
        }
        return Optional.of(new PackageEmbedders(embedders, onnx));
    }

    public Map<String, Embedder> byId() { return embedders; }

    @Override
    public void close() { close(embedders, onnx); }

    private static void close(Map<String, Embedder> embedders, EmbeddedOnnxRuntime onnx) {
        embedders.values().forEach(embedder -> { if (embedder instanceof AbstractComponent component) component.deconstruct(); });
        if (onnx != null) onnx.deconstruct();
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
