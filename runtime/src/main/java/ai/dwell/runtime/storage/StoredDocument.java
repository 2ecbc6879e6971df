package ai.dwell.runtime.storage;

import com.yahoo.document.Document;

/**
 * A document as stored, with the timestamp (microseconds, unique within the store) of the write that made it,
 * which also becomes the document's last-modified time. The document is owned by the store and never
 * modified once stored.
 */
record StoredDocument(Document document, long timestamp) {

    StoredDocument {
        document.setLastModified(timestamp);
    }

    /** Returns a copy of the document that the caller may modify. */
    Document copy() {
        return document.clone();
    }

}
