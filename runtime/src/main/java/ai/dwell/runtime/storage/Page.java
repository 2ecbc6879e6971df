package ai.dwell.runtime.storage;

import com.yahoo.document.Document;

import java.util.List;
import java.util.Optional;

/**
 * One page of a visit of the {@link DocumentStore}.
 *
 * @param documents the documents of this page, copies owned by the caller
 * @param continuation where the next page starts, or empty when the visit is done
 */
public record Page(List<Document> documents, Optional<String> continuation) {

    public Page {
        documents = List.copyOf(documents);
    }

}
