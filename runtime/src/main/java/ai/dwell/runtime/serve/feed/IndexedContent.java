package ai.dwell.runtime.serve.feed;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;

/**
 * Where {@link IndexFollower} puts documents once their indexing statements have run: the content
 * nodes that hold them (implemented by the serving layer, so that feeding does not depend on it).
 */
public interface IndexedContent {

    /** Stores a document, processed by its indexing statements, where it belongs. */
    void put(Document document);

    /**
     * Applies an update, processed by the indexing statements of the fields it touches, to the documents held;
     * false if a node that should hold the document has none, so the update was not applied there.
     */
    boolean update(DocumentUpdate update);

    /** Removes a document from where it is held. */
    void remove(DocumentId id);

}
