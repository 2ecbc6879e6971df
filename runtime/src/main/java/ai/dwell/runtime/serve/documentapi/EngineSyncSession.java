package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.fieldset.AllFields;
import com.yahoo.documentapi.DocumentAccessException;
import com.yahoo.documentapi.DocumentOperationParameters;
import com.yahoo.documentapi.Response;
import com.yahoo.documentapi.SyncSession;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocking document operations against the document backend. */
class EngineSyncSession implements SyncSession {

    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final DocumentBackend backend;

    EngineSyncSession(DocumentBackend backend) {
        this.backend = backend;
    }

    @Override
    public void put(DocumentPut put) {
        requireSuccess(await(backend.put(put), DEFAULT_TIMEOUT));
    }

    @Override
    public void put(DocumentPut put, DocumentOperationParameters parameters) {
        put(put);
    }

    @Override
    public Document get(DocumentId id, Duration timeout) {
        return backend.get(id, AllFields.NAME).orElse(null);
    }

    @Override
    public Document get(DocumentId id, DocumentOperationParameters parameters, Duration timeout) {
        return backend.get(id, parameters.fieldSet().orElse(AllFields.NAME)).orElse(null);
    }

    @Override
    public boolean remove(DocumentRemove remove) {
        WriteOutcome outcome = await(backend.remove(remove), DEFAULT_TIMEOUT);
        requireSuccess(outcome);
        return outcome.found();
    }

    @Override
    public boolean remove(DocumentRemove remove, DocumentOperationParameters parameters) {
        return remove(remove);
    }

    @Override
    public boolean update(DocumentUpdate update) {
        WriteOutcome outcome = await(backend.update(update), DEFAULT_TIMEOUT);
        requireSuccess(outcome);
        return outcome.found();
    }

    @Override
    public boolean update(DocumentUpdate update, DocumentOperationParameters parameters) {
        return update(update);
    }

    @Override
    public Response getNext() { throw new UnsupportedOperationException("Queue not supported"); }

    @Override
    public Response getNext(int timeoutMilliseconds) { throw new UnsupportedOperationException("Queue not supported"); }

    @Override
    public void destroy() { }

    static WriteOutcome await(CompletableFuture<WriteOutcome> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocumentAccessException("Interrupted", e);
        }
        catch (ExecutionException e) {
            throw new DocumentAccessException(e.getCause().getMessage(), e.getCause());
        }
        catch (TimeoutException e) {
            throw new DocumentAccessException("Timed out after " + timeout, e);
        }
    }

    private static void requireSuccess(WriteOutcome outcome) {
        if ( ! outcome.isSuccess())
            throw new DocumentAccessException(outcome.status() + ": " + outcome.message());
    }

}
