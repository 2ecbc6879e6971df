package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.serve.documentapi.DocumentBackend;
import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import com.yahoo.docproc.DocumentProcessor;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentOperation;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.fieldset.FieldSetRepo;
import com.yahoo.document.DocumentTypeManager;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The way of a write, as in Vespa: the package's document processing chain in the container,
 * then the content nodes (here: the durable store and the in-process engine). Reads go to the
 * store, with the requested field set applied.
 */
public class FeedPipeline implements DocumentBackend {

    private final AtomicReference<DocprocRoute> docprocs = new AtomicReference<>();
    private final DocumentSink sink;
    private final DocumentTypeManager types;

    private final Set<String> globalTypes;
    private final Map<String, ContentClusterConfig> clusters;

    /** @param clusters the content clusters, by name: their types, which are global, and which documents each stores */
    public FeedPipeline(DocumentSink sink, DocumentTypeManager types, Map<String, ContentClusterConfig> clusters) {
        this.sink = sink;
        this.types = types;
        this.clusters = Map.copyOf(clusters);
        Set<String> global = new HashSet<>();
        clusters.values().forEach(cluster -> global.addAll(cluster.globalDocumentTypes()));
        this.globalTypes = Set.copyOf(global);
    }

    /** Sets the docproc chains writes go through; until then they go straight to the sink. */
    public void route(DocprocRoute route) { docprocs.set(route); }

    @Override
    public CompletableFuture<WriteOutcome> put(DocumentPut put) {
        return process(put, put.getDocument().getDataType().getName());
    }

    @Override
    public CompletableFuture<WriteOutcome> update(DocumentUpdate update) {
        return process(update, update.getDocumentType().getName());
    }

    @Override
    public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) {
        return sink.remove(remove);
    }

    @Override
    public Optional<Document> get(DocumentId id, String fieldSet) {
        return sink.get(id).map(document -> withFields(document, fieldSet));
    }

    @Override
    public void forEach(String bucketSpace, String cluster, Consumer<Document> consumer) {
        boolean global = "global".equals(bucketSpace);
        ContentClusterConfig content = cluster == null ? null : clusters.get(cluster);
        sink.forEach(document -> {
            String type = document.getDataType().getName();
            if (globalTypes.contains(type) != global) return;
            if (content != null && ( ! content.schemas().containsKey(type) || ! content.selection().accepts(document))) return;
            consumer.accept(document);
        });
    }

    /**
     * Whether a put is stored nowhere, as Vespa's document route selector ignores it: every content cluster of its type
     * has a selection, and none accepts the document.
     */
    private boolean ignored(DocumentPut put) {
        String type = put.getDocument().getDataType().getName();
        boolean anyCluster = false;
        for (ContentClusterConfig cluster : clusters.values()) {
            if ( ! cluster.schemas().containsKey(type)) continue;
            anyCluster = true;
            if (cluster.selection().accepts(put.getDocument())) return false;
        }
        return anyCluster;
    }

    @Override
    public Document withFields(Document document, String fieldSet) {
        if (fieldSet == null || fieldSet.equals("[all]")) return document.clone();
        FieldSetRepo repo = new FieldSetRepo();
        Document copy = document.clone();
        repo.stripFields(copy, repo.parse(types, fieldSet));
        return copy;
    }

    /** As Vespa's docproc service reports a chain's progress back to the document API (DocumentProcessingTask). */
    static WriteOutcome.Status statusOf(DocumentProcessor.Progress progress) {
        if (DocumentProcessor.Progress.INVALID_INPUT.equals(progress)) return WriteOutcome.Status.INVALID_INPUT;
        if (DocumentProcessor.Progress.OVERLOAD.equals(progress)) return WriteOutcome.Status.OVERLOADED;
        if (DocumentProcessor.Progress.TIMEOUT.equals(progress)) return WriteOutcome.Status.TIMEOUT;
        return WriteOutcome.Status.ERROR; // FAILED, PERMANENT_FAILURE, LATER without end
    }

    private CompletableFuture<WriteOutcome> process(DocumentOperation operation, String documentType) {
        DocprocRoute route = docprocs.get();
        List<DocumentOperation> operations = List.of(operation);
        if (route != null) {
            DocprocRoute.Outcome outcome;
            try {
                outcome = route.process(operation, documentType);
            }
            catch (RuntimeException e) {
                return CompletableFuture.completedFuture(WriteOutcome.failure(WriteOutcome.Status.ERROR, e.getMessage()));
            }
            if (outcome.refused())
                return CompletableFuture.completedFuture(WriteOutcome.failure(statusOf(outcome.progress()), outcome.refusal()));
            operations = outcome.operations();
        }
        List<CompletableFuture<WriteOutcome>> writes = new ArrayList<>();
        for (DocumentOperation processed : operations) {
            if (processed instanceof DocumentPut put) writes.add(ignored(put) ? CompletableFuture.completedFuture(WriteOutcome.ignored()) : sink.put(put));
            else if (processed instanceof DocumentUpdate update) writes.add(sink.update(update));
            else if (processed instanceof DocumentRemove remove) writes.add(sink.remove(remove));
        }
        if (writes.size() == 1) return writes.get(0);
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                                .thenApply(ignored -> writes.stream().map(CompletableFuture::join)
                                                            .filter(outcome -> ! outcome.isSuccess())
                                                            .findFirst().orElse(WriteOutcome.ok(true)));
    }

}
