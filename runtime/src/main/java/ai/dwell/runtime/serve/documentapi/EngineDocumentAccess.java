package ai.dwell.runtime.serve.documentapi;

import com.yahoo.documentapi.AsyncParameters;
import com.yahoo.documentapi.AsyncSession;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.DocumentAccessParams;
import com.yahoo.documentapi.SubscriptionParameters;
import com.yahoo.documentapi.SubscriptionSession;
import com.yahoo.documentapi.SyncParameters;
import com.yahoo.documentapi.SyncSession;
import com.yahoo.documentapi.VisitorDestinationParameters;
import com.yahoo.documentapi.VisitorDestinationSession;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.documentapi.VisitorSession;
import com.yahoo.document.select.parser.ParseException;

/**
 * Vespa's document API, served by the runtime's document backend instead of message bus. The
 * container's /document/v1 handler and every component that injects DocumentAccess use it.
 */
public class EngineDocumentAccess extends DocumentAccess {

    private final DocumentBackend backend;

    public EngineDocumentAccess(DocumentAccessParams parameters, DocumentBackend backend) {
        super(parameters);
        this.backend = backend;
    }

    @Override
    public SyncSession createSyncSession(SyncParameters parameters) {
        return new EngineSyncSession(backend);
    }

    @Override
    public AsyncSession createAsyncSession(AsyncParameters parameters) {
        return new EngineAsyncSession(backend, parameters.getResponseHandler());
    }

    @Override
    public VisitorSession createVisitorSession(VisitorParameters parameters) throws ParseException {
        SelectionTypes.requireKnown(parameters.getDocumentSelection(), getDocumentTypeManager());
        return new EngineVisitorSession(backend, parameters);
    }

    @Override
    public VisitorDestinationSession createVisitorDestinationSession(VisitorDestinationParameters parameters) {
        throw new UnsupportedOperationException("Visitor destination sessions are not supported by dwell's local runtime");
    }

    @Override
    public SubscriptionSession createSubscription(SubscriptionParameters parameters) {
        throw new UnsupportedOperationException("Subscriptions are not supported by dwell's local runtime");
    }

    @Override
    public SubscriptionSession openSubscription(SubscriptionParameters parameters) {
        throw new UnsupportedOperationException("Subscriptions are not supported by dwell's local runtime");
    }

}
