package com.yahoo.container.core.documentapi;

import ai.dwell.runtime.serve.documentapi.DocumentAccesses;
import com.yahoo.document.config.DocumentmanagerConfig;
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
import com.yahoo.messagebus.MessagebusConfig;
import com.yahoo.yolean.concurrent.Memoized;

/**
 * dwell's runtime stand-in for Vespa's VespaDocumentAccess, which the container's
 * DocumentAccessProvider creates and which /document/v1 and user components receive. Vespa's
 * delegates to message bus and the content nodes behind it; this one delegates to the runtime's
 * document backend (docprocs, indexing, the durable store and the in-process content engine).
 * It has the same name and signatures and is earlier on the runtime's class path.
 */
public class VespaDocumentAccess extends DocumentAccess {

    private final Memoized<DocumentAccess, RuntimeException> delegate;

    VespaDocumentAccess(DocumentmanagerConfig documentmanagerConfig, String configId, MessagebusConfig messagebusConfig) {
        super(new DocumentAccessParams().setDocumentmanagerConfig(documentmanagerConfig));
        this.delegate = new Memoized<>(() -> DocumentAccesses.create(documentmanagerConfig), DocumentAccess::shutdown);
    }

    public DocumentAccess delegate() { return delegate.get(); }

    @Override
    public void shutdown() { }

    void protectedShutdown() {
        delegate.close();
    }

    @Override
    public SyncSession createSyncSession(SyncParameters parameters) { return delegate().createSyncSession(parameters); }

    @Override
    public AsyncSession createAsyncSession(AsyncParameters parameters) { return delegate().createAsyncSession(parameters); }

    @Override
    public VisitorSession createVisitorSession(VisitorParameters parameters) throws ParseException {
        return delegate().createVisitorSession(parameters);
    }

    @Override
    public VisitorDestinationSession createVisitorDestinationSession(VisitorDestinationParameters parameters) {
        return delegate().createVisitorDestinationSession(parameters);
    }

    @Override
    public SubscriptionSession createSubscription(SubscriptionParameters parameters) {
        return delegate().createSubscription(parameters);
    }

    @Override
    public SubscriptionSession openSubscription(SubscriptionParameters parameters) {
        return delegate().openSubscription(parameters);
    }

}
