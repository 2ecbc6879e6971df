package ai.dwell.runtime.serve.documentapi;

import ai.dwell.runtime.engine.ContentNode;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.DocumentAccessParams;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The document backend of this process. The container builds its DocumentAccess through Vespa's
 * DocumentAccessProvider; the runtime's stand-in for VespaDocumentAccess (same class name, earlier
 * on the class path, see runtime/README.md) asks here for the access to delegate to.
 */
public final class DocumentAccesses {

    private static final AtomicReference<DocumentBackend> backend = new AtomicReference<>();

    private static final AtomicReference<Function<String, List<ContentNode>>> streamingNodes = new AtomicReference<>(cluster -> List.of());

    private DocumentAccesses() {}

    /** Sets where streaming queries go from now on: the content nodes of a content cluster, by its name. */
    public static void installStreaming(Function<String, List<ContentNode>> nodesOfCluster) { streamingNodes.set(nodesOfCluster); }

    /** The content nodes that answer streaming queries to the named cluster. */
    static List<ContentNode> streamingNodes(String cluster) {
        List<ContentNode> nodes = streamingNodes.get().apply(cluster);
        if (nodes.isEmpty()) throw new IllegalArgumentException("Streaming search: no content nodes of cluster '" + cluster + "'");
        return nodes;
    }

    /** Sets where the container's document operations go from now on. */
    public static void install(DocumentBackend documentBackend) { backend.set(documentBackend); }

    /** A document access for these document types, backed by the installed backend. */
    public static DocumentAccess create(DocumentmanagerConfig config) {
        DocumentBackend current = backend.get();
        if (current == null)
            throw new IllegalStateException("No document backend installed in dwell's runtime");
        return new EngineDocumentAccess(new DocumentAccessParams().setDocumentmanagerConfig(config), current);
    }

}
