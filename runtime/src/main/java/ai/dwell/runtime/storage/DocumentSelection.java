package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.document.select.Result;
import com.yahoo.document.select.parser.ParseException;

/** A Vespa document selection, parsed and evaluated by Vespa's own {@link DocumentSelector}. */
final class DocumentSelection {

    private final DocumentSelector selector;

    private DocumentSelection(DocumentSelector selector) {
        this.selector = selector;
    }

    /** Parses the selection, or throws {@link IllegalArgumentException} with the parser's message. */
    static DocumentSelection parse(String selection) {
        try {
            return new DocumentSelection(new DocumentSelector(selection));
        }
        catch (ParseException e) {
            String detail = e.getCause() != null ? e.getCause().getMessage() : "";
            throw new IllegalArgumentException(e.getMessage() + (detail.isEmpty() ? "" : ": " + detail), e);
        }
    }

    /**
     * Returns whether the document matches. Like Vespa's content nodes, a selection that cannot be
     * evaluated for this document (e.g. {@code id.user} of an id without one) does not match.
     *
     * @throws IllegalArgumentException if the selection names a field that the document's type lacks
     */
    boolean matches(Document document) {
        try {
            return selector.accepts(new DocumentPut(document)) == Result.TRUE;
        }
        catch (IllegalArgumentException e) {
            throw e;
        }
        catch (RuntimeException e) {
            return false;
        }
    }

}
