package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.NumericDataType;
import com.yahoo.document.update.AssignValueUpdate;
import com.yahoo.document.update.FieldUpdate;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Refuses the writes a blocked content cluster refuses (see {@link FeedBlock}), as Vespa's distributors do: every
 * put, and every update but those that only assign values to numeric single-value fields; removes go through, so
 * that space can be freed. A refused write changes nothing and gets Vespa's NO_SPACE, which /document/v1 answers
 * with 507 Insufficient Storage.
 */
public final class FeedBlockingSink implements DocumentSink {

    private final DocumentSink sink;
    private final Map<String, FeedBlock> blockOfType;

    /** @param blockOfType the feed block of the content cluster that holds each document type */
    public FeedBlockingSink(DocumentSink sink, Map<String, FeedBlock> blockOfType) {
        this.sink = sink;
        this.blockOfType = Map.copyOf(blockOfType);
    }

    @Override
    public CompletableFuture<WriteOutcome> put(DocumentPut put) {
        Optional<String> blocked = blocked(put.getDocument().getDataType().getName());
        if (blocked.isPresent()) return refused("Put", put.getId(), blocked.get());
        return sink.put(put);
    }

    @Override
    public CompletableFuture<WriteOutcome> update(DocumentUpdate update) {
        if ( ! onlyAssignsNumbers(update)) {
            Optional<String> blocked = blocked(update.getDocumentType().getName());
            if (blocked.isPresent()) return refused("Update", update.getId(), blocked.get());
        }
        return sink.update(update);
    }

    @Override
    public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) { return sink.remove(remove); }

    @Override
    public Optional<Document> get(DocumentId id) { return sink.get(id); }

    @Override
    public void forEach(Consumer<Document> consumer) { sink.forEach(consumer); }

    private Optional<String> blocked(String documentType) {
        FeedBlock block = blockOfType.get(documentType);
        return block == null ? Optional.empty() : block.blocked();
    }

    /** Whether the update only assigns values to numeric single-value fields: the updates a blocked cluster lets through. */
    static boolean onlyAssignsNumbers(DocumentUpdate update) {
        if ( ! update.fieldPathUpdates().isEmpty() || update.fieldUpdates().isEmpty()) return false;
        for (FieldUpdate fieldUpdate : update.fieldUpdates()) {
            if ( ! (fieldUpdate.getField().getDataType() instanceof NumericDataType)) return false;
            if ( ! fieldUpdate.getValueUpdates().stream().allMatch(valueUpdate -> valueUpdate instanceof AssignValueUpdate)) return false;
        }
        return true;
    }

    private static CompletableFuture<WriteOutcome> refused(String operation, DocumentId id, String because) {
        return CompletableFuture.completedFuture(WriteOutcome.failure(WriteOutcome.Status.INSUFFICIENT_STORAGE,
                                                                      operation + " operation rejected for document '" + id + "': " +
                                                                      "ReturnCode(NO_SPACE, " + because + ")"));
    }

}
