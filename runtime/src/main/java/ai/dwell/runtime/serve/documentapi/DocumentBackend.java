package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

}
