package ai.dwell.runtime.storage;

import com.yahoo.document.Document;

/**
 * A document as stored: its serialization in Vespa's binary document format (the payload of its log entry),
 * and the timestamp (microseconds, unique within the store) of the write that made it, which also becomes
 * the document's last-modified time.
 *
 * <p>Documents are kept serialized, as proton's document store does, because a live {@link Document} object
 * graph takes several times the memory of its serialization; they are decoded when read. The bytes are owned
 * by the store and never modified once stored, so a stored document can be shared between threads.
 */
record StoredDocument(byte[] serialized, long timestamp) {

    /** Returns a new document decoded from the stored bytes, owned by the caller, with last-modified set to the timestamp. */
    Document decode(DocumentCodec codec) {
        Document document = codec.deserialize(serialized);
        document.setLastModified(timestamp);
        return document;
    }

}
