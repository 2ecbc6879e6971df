package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.storage.ChangeListener;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;


/**
 * Keeps the content nodes in step with the document store: each stored document is run through
 * its schema's indexing statements (tokenization and all) and put on the nodes that hold it. For
 * writes, the indexing runs on the writer's thread before the write is logged ({@link #prepare});
 * the store's commit thread then only puts the indexed document on the nodes.
 */
public class IndexFollower implements ChangeListener {


    private final IndexingScripts indexing;
    private final IndexedContent content;

    public IndexFollower(IndexingScripts indexing, IndexedContent content) {
        this.indexing = indexing;
        this.content = content;
    }

    /** Runs the indexing statements on the writer's thread; a document they refuse is not stored. */
    @Override
    public Object prepare(Document document) {
        try {
            return indexing.process(document.clone());
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("Could not index " + document.getId() + ": " + e.getMessage(), e);
        }
    }

    /**
     * For an update of an existing document, as Vespa: only the indexing statements of the fields the
     * update touches run, on the update; the content nodes apply it to the document they hold.
     */
    @Override
    public Object prepareUpdate(DocumentUpdate update, Document updated) {
        if ( ! update.fieldPathUpdates().isEmpty()) return prepare(updated);
        try {
            return new IndexedUpdate(indexing.process(update));
        }
        catch (RuntimeException e) {
            throw new IllegalArgumentException("Could not index " + update.getId() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void onPut(Document document, Object prepared) {
        if (prepared instanceof IndexedUpdate indexed) {
            if ( ! content.update(indexed.update(), document, timestamp(document))) onPut(document); // a node without the document: index it whole
        }
        else content.put((Document) prepared, timestamp(document));
    }

    /** An update with its indexing statements applied, for the nodes to apply to the documents they hold. */
    private record IndexedUpdate(DocumentUpdate update) {}

    @Override
    public void onPut(Document document) {
        content.put(indexing.process(document.clone()), timestamp(document)); // a failure is the store's to report: the write is not acknowledged
    }

    @Override
    public void onRemove(DocumentId id) {
        content.remove(id);
    }

    @Override
    public boolean isCurrent(DocumentId id, long timestamp) { return content.isCurrent(id, timestamp); }

    @Override
    public void beginCatchUp() { content.beginCatchUp(); }

    @Override
    public void endCatchUp() { content.endCatchUp(); }

    /** The store's timestamp of the write that made this version (its last-modified time), 0 if unknown. */
    private static long timestamp(Document document) {
        Long lastModified = document.getLastModified();
        return lastModified == null ? 0 : lastModified;
    }

}
