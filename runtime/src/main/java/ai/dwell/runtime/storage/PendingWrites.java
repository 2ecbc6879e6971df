package ai.dwell.runtime.storage;

import com.yahoo.document.DocumentId;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Orders the writes to each document, and tracks the newest version of documents that have writes
 * waiting for their commit, so the next write to a document builds on the previous one without waiting for it.
 * Writes to a document must hold its {@link #lockFor lock} from reading its version until its entry is appended.
 */
final class PendingWrites {

    private static final int LOCK_STRIPES = 1024;

    private final DocumentTable table;
    private final Object[] locks = new Object[LOCK_STRIPES];
    private final ConcurrentHashMap<DocumentId, Version> pending = new ConcurrentHashMap<>();

    PendingWrites(DocumentTable table) {
        this.table = table;
        for (int i = 0; i < locks.length; i++) locks[i] = new Object();
    }

    Object lockFor(DocumentId id) {
        return locks[Math.floorMod(id.hashCode(), LOCK_STRIPES)];
    }

    /** Returns the newest version of the document. Hold its lock. */
    Version newest(DocumentId id) {
        Version version = pending.get(id);
        return version != null ? version : Version.durable(table.get(id).orElse(null));
    }

    /** Records a version that is being written. Hold the document's lock. */
    void begin(DocumentId id, Version version) {
        pending.put(id, version);
    }

    /** Forgets a version once it is in the table, or failed, unless a newer one is pending. */
    void end(DocumentId id, Version version) {
        pending.remove(id, version);
    }

}
