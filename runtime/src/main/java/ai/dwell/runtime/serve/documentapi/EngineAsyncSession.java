package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.fieldset.AllFields;
import com.yahoo.documentapi.AsyncSession;
import com.yahoo.documentapi.DocumentIdResponse;
import com.yahoo.documentapi.DocumentOperationParameters;
import com.yahoo.documentapi.DocumentResponse;
import com.yahoo.documentapi.DocumentUpdateResponse;
import com.yahoo.documentapi.RemoveResponse;
import com.yahoo.documentapi.Response;
import com.yahoo.documentapi.ResponseHandler;
import com.yahoo.documentapi.Result;
import com.yahoo.documentapi.UpdateResponse;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import com.yahoo.documentapi.messagebus.protocol.DocumentProtocol;
import com.yahoo.messagebus.Error;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

import static com.yahoo.documentapi.DocumentOperationParameters.parameters;

/**
 * Asynchronous document operations: each is accepted at once with a request id, and its response
 * is delivered to the operation's (or the session's) response handler when the backend completes it.
 *
 * <p>As Vespa's message bus session, it has a window of pending writes: a write beyond it is not
 * accepted but answered with a transient error ("send queue full"), which /document/v1 (Vespa's
 * DocumentV1ApiHandler) retries from its own bounded queue and answers with 429 once that is full.
 * So a burst never queues without bound.
 */
class EngineAsyncSession implements AsyncSession {

    /** The most writes pending in one session, as message bus's throttle window; -Ddwell.maxPendingWrites overrides. */
    static final int MAX_PENDING = Integer.getInteger("dwell.maxPendingWrites", 256);

    private final DocumentBackend backend;
    private final Semaphore window = new Semaphore(MAX_PENDING);
    private final ResponseHandler sessionHandler;
    private final BlockingQueue<Response> queued = new LinkedBlockingQueue<>();
    private final AtomicLong requestIds = new AtomicLong();

    EngineAsyncSession(DocumentBackend backend, ResponseHandler sessionHandler) {
        this.backend = backend;
        this.sessionHandler = sessionHandler;
    }

    @Override
    public Result put(Document document) { return put(new DocumentPut(document), parameters()); }

    @Override
    public Result put(DocumentPut put, DocumentOperationParameters parameters) {
        return send(() -> backend.put(put), parameters, (id, outcome) -> outcome.isSuccess()
                ? new DocumentResponse(id, put.getDocument())
                : new DocumentResponse(id, put.getDocument(), outcome.message(), outcomeOf(outcome)));
    }

    @Override
    public Result get(DocumentId id) { return get(id, parameters()); }

    @Override
    public Result get(DocumentId documentId, DocumentOperationParameters parameters) {
        long id = requestIds.incrementAndGet();
        Response response;
        try {
            Document document = backend.get(documentId, parameters.fieldSet().orElse(AllFields.NAME)).orElse(null);
            response = document != null ? new DocumentResponse(id, document)
                                        : new DocumentResponse(id, null, "Document not found", Response.Outcome.NOT_FOUND);
        }
        catch (RuntimeException e) {
            response = new DocumentResponse(id, null, e.getMessage(), Response.Outcome.ERROR);
        }
        deliver(response, parameters);
        return new Result(id);
    }

    @Override
    public Result remove(DocumentId id) { return remove(new DocumentRemove(id), parameters()); }

    @Override
    public Result remove(DocumentRemove remove, DocumentOperationParameters parameters) {
        return send(() -> backend.remove(remove), parameters, (id, outcome) -> outcome.isSuccess()
                ? new RemoveResponse(id, outcome.found())
                : new DocumentIdResponse(id, remove.getId(), outcome.message(), outcomeOf(outcome)));
    }

    @Override
    public Result update(DocumentUpdate update) { return update(update, parameters()); }

    @Override
    public Result update(DocumentUpdate update, DocumentOperationParameters parameters) {
        return send(() -> backend.update(update), parameters, (id, outcome) -> outcome.isSuccess()
                ? new UpdateResponse(id, outcome.found())
                : new DocumentUpdateResponse(id, update, outcome.message(), outcomeOf(outcome)));
    }

    private Result send(Supplier<CompletableFuture<WriteOutcome>> write, DocumentOperationParameters parameters,
                        BiFunction<Long, WriteOutcome, Response> toResponse) {
        if ( ! window.tryAcquire())
            return new Result(Result.ResultType.TRANSIENT_ERROR,
                              new Error(DocumentProtocol.ERROR_OVERLOAD, "Send queue full: " + MAX_PENDING + " writes pending"));
        CompletableFuture<WriteOutcome> operation;
        try {
            operation = write.get();
        }
        catch (RuntimeException e) {
            operation = CompletableFuture.failedFuture(e);
        }
        long id = requestIds.incrementAndGet();
        operation.whenComplete((outcome, failure) -> { window.release(); deliver(
                failure == null ? toResponse.apply(id, outcome)
                                : new Response(id, failure.getMessage(), Response.Outcome.ERROR),
                parameters); });
        return new Result(id);
    }

    private void deliver(Response response, DocumentOperationParameters parameters) {
        ResponseHandler handler = parameters.responseHandler().orElse(sessionHandler);
        if (handler != null) handler.handleResponse(response);
        else queued.add(response);
    }

    static Response.Outcome outcomeOf(WriteOutcome outcome) {
        return switch (outcome.status()) {
            case OK -> Response.Outcome.SUCCESS;
            case IGNORED -> Response.Outcome.IGNORED;      // no cluster's selection accepts the document
            case NOT_FOUND -> Response.Outcome.NOT_FOUND;
            case CONDITION_FAILED -> Response.Outcome.CONDITION_FAILED;
            case INVALID_INPUT -> Response.Outcome.REJECTED;       // 400, as ERROR_REJECTED from a docproc's INVALID_INPUT
            case OVERLOADED -> Response.Outcome.OVERLOAD;          // 429
            case TIMEOUT -> Response.Outcome.TIMEOUT;              // 504
            case INSUFFICIENT_STORAGE -> Response.Outcome.INSUFFICIENT_STORAGE; // 507: feed blocked, or the disk is full
            case ERROR -> Response.Outcome.ERROR;                  // 500
        };
    }

    @Override
    public double getCurrentWindowSize() { return MAX_PENDING; }

    @Override
    public Response getNext() { return queued.poll(); }

    @Override
    public Response getNext(int timeoutMilliseconds) throws InterruptedException {
        return queued.poll(timeoutMilliseconds, TimeUnit.MILLISECONDS);
    }

    @Override
    public void destroy() { }

}
