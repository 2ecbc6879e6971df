package ai.dwell.runtime.serve.feed;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;

/**
 * Where {@link IndexFollower} puts documents once their indexing statements have run: the content
 * nodes that hold them (implemented by the serving layer, so that feeding does not depend on it).
 */
public interface IndexedContent {

    /** Stores a document, processed by its indexing statements, where it belongs; timestamp: the store's, of the write. */
    void put(Document document, long timestamp);

    /**
     * Applies an update, processed by the indexing statements of the fields it touches, to the documents held;
     * false if a node that should hold the document has none, so the update was not applied there.
     * {@code updated} is the whole document after the update, as stored (where it belongs may depend on it).
     */
    boolean update(DocumentUpdate update, Document updated, long timestamp);

    /** Whether the content already holds this document in the version the store wrote at this timestamp (see ChangeListener#isCurrent). */
    default boolean isCurrent(DocumentId id, long timestamp) { return false; }

    /** A catch-up with the store begins (see ChangeListener#beginCatchUp). */
    default void beginCatchUp() {}

    /** A catch-up with the store ended: what was neither current nor put meanwhile is removed (see ChangeListener#endCatchUp). */
    default void endCatchUp() {}

    /** Removes a document from where it is held. */
    void remove(DocumentId id);

}
