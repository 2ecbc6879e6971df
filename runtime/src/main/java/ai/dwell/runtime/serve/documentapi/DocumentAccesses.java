package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.DocumentAccessParams;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The document backend of this process. The container builds its DocumentAccess through Vespa's
 * DocumentAccessProvider; the runtime's stand-in for VespaDocumentAccess (same class name, earlier
 * on the class path, see runtime/README.md) asks here for the access to delegate to.
 */
public final class DocumentAccesses {

    private static final AtomicReference<DocumentBackend> backend = new AtomicReference<>();

    private DocumentAccesses() {}

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
