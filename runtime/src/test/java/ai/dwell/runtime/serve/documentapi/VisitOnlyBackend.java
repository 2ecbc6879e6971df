package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A document backend for visitor tests: its documents come from the given forEach; writes and gets are refused. */
final class VisitOnlyBackend implements DocumentBackend {

    /** The documents of a bucket space (and content cluster, or null), given to the consumer. */
    interface Documents {
        void forEach(String bucketSpace, String cluster, Consumer<Document> consumer);
    }

    private final Documents documents;

    VisitOnlyBackend(Documents documents) { this.documents = documents; }

    @Override public CompletableFuture<WriteOutcome> put(DocumentPut put) { throw new UnsupportedOperationException(); }
    @Override public CompletableFuture<WriteOutcome> update(DocumentUpdate update) { throw new UnsupportedOperationException(); }
    @Override public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) { throw new UnsupportedOperationException(); }
    @Override public Optional<Document> get(DocumentId id, String fieldSet) { throw new UnsupportedOperationException(); }
    @Override public void forEach(String bucketSpace, String cluster, Consumer<Document> consumer) { documents.forEach(bucketSpace, cluster, consumer); }
    @Override public Document withFields(Document document, String fieldSet) { return document; }

}
