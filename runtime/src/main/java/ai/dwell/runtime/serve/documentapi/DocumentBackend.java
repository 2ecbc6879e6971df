package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where document operations go: in Vespa the document processing chains and then the content
 * nodes. A write's future completes once the write is durable and visible to search.
 */
public interface DocumentBackend {

    CompletableFuture<WriteOutcome> put(DocumentPut put);

    CompletableFuture<WriteOutcome> update(DocumentUpdate update);

    CompletableFuture<WriteOutcome> remove(DocumentRemove remove);

    /** Returns the document, with only the fields of the given field set (e.g. "[all]", "comment:[document]"). */
    Optional<Document> get(DocumentId id, String fieldSet);

    /**
     * Gives every stored document of the given bucket space ("default" or "global") to the consumer, read-only; with a
     * content cluster's name, only the documents that cluster stores (of its types, accepted by its selection).
     */
    void forEach(String bucketSpace, String cluster, Consumer<Document> consumer);

    /** Returns a copy of the document with only the fields of the field set. */
    Document withFields(Document document, String fieldSet);

}
