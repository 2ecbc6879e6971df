package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import ai.dwell.runtime.storage.DocumentStore;
import ai.dwell.runtime.storage.Result;
import ai.dwell.runtime.storage.StorageFullException;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * Writes go to the durable document store; the content nodes follow the store (see
 * {@link IndexFollower}), before the writer is acknowledged.
 */
public class StoreSink implements DocumentSink {

    private final DocumentStore store;

    public StoreSink(DocumentStore store) {
        this.store = store;
    }

    @Override
    public CompletableFuture<WriteOutcome> put(DocumentPut put) { return outcome(store.putAsync(put)); }

    @Override
    public CompletableFuture<WriteOutcome> update(DocumentUpdate update) { return outcome(store.updateAsync(update)); }

    @Override
    public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) { return outcome(store.removeAsync(remove)); }

    /** The outcome of a write: a write the disk had no room for is Vespa's NO_SPACE (507); other failures stay failures (500). */
    private static CompletableFuture<WriteOutcome> outcome(CompletableFuture<Result> write) {
        return write.handle((result, failure) -> {
            if (failure == null) return outcome(result);
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof StorageFullException)
                return WriteOutcome.failure(WriteOutcome.Status.INSUFFICIENT_STORAGE, "ReturnCode(NO_SPACE, " + cause.getMessage() + ")");
            throw failure instanceof CompletionException completion ? completion : new CompletionException(failure);
        });
    }

    @Override
    public Optional<Document> get(DocumentId id) { return store.get(id); }

    @Override
    public void forEach(Consumer<Document> consumer) { store.forEach(consumer); }

    static WriteOutcome outcome(Result result) {
        return switch (result.status()) {
            case OK -> WriteOutcome.ok(result.existed());
            case NOT_FOUND -> WriteOutcome.notFound();
            case CONDITION_FAILED -> WriteOutcome.failure(WriteOutcome.Status.CONDITION_FAILED, result.message());
            case BAD_REQUEST -> WriteOutcome.failure(WriteOutcome.Status.INVALID_INPUT, result.message());
            case NOT_APPLIED -> WriteOutcome.failure(WriteOutcome.Status.ERROR, result.message()); // 500: logged, not acknowledged
        };
    }

}
