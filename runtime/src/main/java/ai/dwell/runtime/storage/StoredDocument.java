package ai.dwell.runtime.storage;

import com.yahoo.document.Document;

/**
 * A document as stored, with the timestamp (microseconds, unique within the store) of the write that made it.
 * The document is never modified once stored.
 */
record StoredDocument(Document document, long timestamp) {

    /** Returns a copy of the document that the caller may modify, with its last-modified time set. */
    Document copy() {
        Document copy = document.clone();
        copy.setLastModified(timestamp);
        return copy;
    }

}
