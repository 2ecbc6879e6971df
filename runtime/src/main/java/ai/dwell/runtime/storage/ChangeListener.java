package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;

/**
 * Follows the changes applied to a {@link DocumentStore}, e.g. to maintain an index.
 *
 * <p>Calls come from the store's commit thread, after the change is durable and visible to
 * {@link DocumentStore#get}, before the writer is acknowledged, and in log order. Implementations
 * must be fast and must not block, and must not modify the documents they are given.
 */
public interface ChangeListener {

    /**
     * Does the per-document work for a put ahead of time, on the writer's thread, before the write is
     * logged: what it returns is given to {@link #onPut(Document, Object)} once the write is durable,
     * so the commit thread only applies it. Throwing {@link IllegalArgumentException} refuses the write
     * (a bad request): nothing is stored. Null: nothing prepared, {@link #onPut(Document)} is called.
     * Must not modify the document.
     */
    default Object prepare(Document document) { return null; }

    /**
     * As {@link #prepare}, for an update of an existing document: the update as the writer sent it and the
     * document it makes. A listener that can apply the update itself need not redo the whole document.
     */
    default Object prepareUpdate(DocumentUpdate update, Document updated) { return prepare(updated); }

    /** A document was put, with what {@link #prepare} or {@link #prepareUpdate} returned for it. */
    default void onPut(Document document, Object prepared) { onPut(document); }

    /**
     * A document was put, updated, or created by an update; this is its new, complete content, with its
     * last-modified time set to the write's timestamp.
     */
    void onPut(Document document);

    /** A document was removed. */
    void onRemove(DocumentId id);

    /**
     * While {@link DocumentStore#subscribe} brings this up to the store: whether this already holds the document in the
     * version the store wrote at this timestamp (e.g. from state it loaded); then the document is neither prepared nor
     * given to onPut. Called on several threads at once.
     */
    default boolean isCurrent(DocumentId id, long timestamp) { return false; }

    /** {@link DocumentStore#subscribe} starts giving this the store's documents. */
    default void beginCatchUp() {}

    /**
     * {@link DocumentStore#subscribe} has given this every document of the store (or found it current): what this
     * holds beyond those, the store no longer has. Called before any later change.
     */
    default void endCatchUp() {}

}
