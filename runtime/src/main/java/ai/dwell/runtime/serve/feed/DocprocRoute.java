package ai.dwell.runtime.serve.feed;

import com.yahoo.application.container.DocumentProcessing;
import com.yahoo.component.ComponentSpecification;
import com.yahoo.docproc.DocumentProcessor.Progress;
import com.yahoo.docproc.Processing;
import com.yahoo.document.DocumentOperation;

import java.util.List;
import java.util.Map;

/**
 * Sends writes through the document processing chain that the package's content cluster names
 * (`<documents><document-processing chain="..."/>`), in the container, as Vespa routes them
 * before indexing. Document types without a chain pass through.
 */
public class DocprocRoute {

    /** The operations the chain let through, or why it refused them, with the progress it refused them with. */
    public record Outcome(List<DocumentOperation> operations, String refusal, Progress progress) {
        public boolean refused() { return refusal != null; }
    }

    private final DocumentProcessing processing;
    private final Map<String, String> chainOfType;

    /** @param chainOfType the chain name for each document type that has one */
    public DocprocRoute(DocumentProcessing processing, Map<String, String> chainOfType) {
        this.processing = processing;
        this.chainOfType = Map.copyOf(chainOfType);
    }

    public Outcome process(DocumentOperation operation, String documentType) {
        String chain = chainOfType.get(documentType);
        if (chain == null || processing == null) return new Outcome(List.of(operation), null, Progress.DONE);
        Processing work = Processing.of(operation);
        Progress progress = processing.process(ComponentSpecification.fromString(chain), work);
        if (progress == Progress.DONE)
            return new Outcome(List.copyOf(work.getDocumentOperations()), null, progress);
        return new Outcome(List.of(), progress.getReason().orElse("Document processing chain '" + chain + "' returned " + progress), progress);
    }

}
