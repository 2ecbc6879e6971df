package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** Where processed writes end up: the durable store and the content nodes. */
public interface DocumentSink {

    CompletableFuture<WriteOutcome> put(DocumentPut put);

    CompletableFuture<WriteOutcome> update(DocumentUpdate update);

    CompletableFuture<WriteOutcome> remove(DocumentRemove remove);

    Optional<Document> get(DocumentId id);

    /** Gives every stored document to the consumer, read-only. */
    void forEach(Consumer<Document> consumer);

}
