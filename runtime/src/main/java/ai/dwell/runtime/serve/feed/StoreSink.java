package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import ai.dwell.runtime.storage.DocumentStore;
import ai.dwell.runtime.storage.Result;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
    public CompletableFuture<WriteOutcome> put(DocumentPut put) { return store.putAsync(put).thenApply(StoreSink::outcome); }

    @Override
    public CompletableFuture<WriteOutcome> update(DocumentUpdate update) { return store.updateAsync(update).thenApply(StoreSink::outcome); }

    @Override
    public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) { return store.removeAsync(remove).thenApply(StoreSink::outcome); }

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
