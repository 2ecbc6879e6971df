package ai.dwell.runtime.serve.feed;

import com.yahoo.application.container.DocumentProcessing;
import com.yahoo.component.ComponentSpecification;
import com.yahoo.docproc.DocumentProcessor.Progress;
import com.yahoo.docproc.Processing;
import com.yahoo.document.DocumentOperation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sends writes through the document processing chains of their document type, in the container, as Vespa routes
 * them before indexing: the container's chain named "default" (on Vespa's default route), then the chain the
 * package's content cluster names (`<documents><document-processing chain="..."/>`); each chain takes what the one
 * before it let through. Document types without a chain pass through.
 */
public class DocprocRoute {

    /** The operations the chain let through, or why it refused them, with the progress it refused them with. */
    public record Outcome(List<DocumentOperation> operations, String refusal, Progress progress) {
        public boolean refused() { return refusal != null; }
    }

    private final DocumentProcessing processing;
    private final Map<String, List<String>> chainsOfType;

    /** @param chainsOfType the chain names, in order, for each document type that has any */
    public DocprocRoute(DocumentProcessing processing, Map<String, List<String>> chainsOfType) {
        this.processing = processing;
        this.chainsOfType = Map.copyOf(chainsOfType);
    }

    public Outcome process(DocumentOperation operation, String documentType) {
        List<String> chains = chainsOfType.getOrDefault(documentType, List.of());
        List<DocumentOperation> operations = List.of(operation);
        if (processing == null) return new Outcome(operations, null, Progress.DONE);
        for (String chain : chains) {
            List<DocumentOperation> next = new ArrayList<>();
            for (DocumentOperation each : operations) {
                Processing work = Processing.of(each);
                Progress progress = processing.process(ComponentSpecification.fromString(chain), work);
                if (progress != Progress.DONE)
                    return new Outcome(List.of(), progress.getReason().orElse("Document processing chain '" + chain + "' returned " + progress), progress);
                next.addAll(work.getDocumentOperations());
            }
            operations = List.copyOf(next);
        }
        return new Outcome(operations, null, Progress.DONE);
    }

}
