package ai.dwell.runtime.engine;

import ai.dwell.runtime.format.CorruptStateException;
import ai.dwell.runtime.format.StateFile;
import com.yahoo.document.GlobalId;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The not-ready copies one content node holds of one document type: those of its replicas that are not indexed, as
 * proton keeps them in its not-ready sub-database (document store only). The runtime's one store holds the documents,
 * so a not-ready copy is bookkeeping only: which documents, at which store timestamp. It is counted in
 * documents.total, verified when catching up with the store, and flushed to {@code <type>.notready} beside the index
 * state. Not thread safe: the content node locks.
 */
final class NotReadyCopies {

    static final int MAGIC = 0x44574e52; // "DWNR"
    private static final int FORMAT_VERSION = 1;
    private static final int GLOBAL_ID_SIZE = 12;

    private final Map<GlobalId, Long> timestamps = new HashMap<>();
    private final Set<GlobalId> verified = new HashSet<>();
    private long changes = 0;

    /** Holds a copy of the document, written by the store at this timestamp. */
    void put(GlobalId gid, long timestamp) {
        timestamps.put(gid, timestamp);
        verified.add(gid);
        changes++;
    }

    /** Drops the copy of the document; returns whether there was one. */
    boolean remove(GlobalId gid) {
        verified.remove(gid);
        if (timestamps.remove(gid) == null) return false;
        changes++;
        return true;
    }

    boolean contains(GlobalId gid) { return timestamps.containsKey(gid); }

    int size() { return timestamps.size(); }

    /** Writes since this was created or loaded. */
    long changes() { return changes; }

    /** Whether the copy held is the version the store wrote at this timestamp; if so it is kept by {@link #removeUnverified}. */
    boolean verify(GlobalId gid, long timestamp) {
        Long held = timestamps.get(gid);
        if (held == null || held != timestamp) return false;
        verified.add(gid);
        return true;
    }

    void beginCatchUp() { verified.clear(); }

    /** Drops the copies neither verified nor written since the catch-up began; returns how many. */
    int removeUnverified() {
        int before = timestamps.size();
        timestamps.keySet().retainAll(verified);
        verified.clear();
        int removed = before - timestamps.size();
        if (removed > 0) changes++;
        return removed;
    }

    private long newestTimestamp() { return timestamps.values().stream().mapToLong(Long::longValue).max().orElse(0); }

    /** Writes the copies to the file, atomically and durably; returns its size. */
    long write(Path file) throws IOException {
        GlobalId[] gids = timestamps.keySet().toArray(new GlobalId[0]);
        return StateFile.write(file, MAGIC, newestTimestamp(), out -> {
            out.writeInt(FORMAT_VERSION);
            byte[] raw = new byte[GLOBAL_ID_SIZE * gids.length];
            long[] stamps = new long[gids.length];
            for (int i = 0; i < gids.length; i++) {
                System.arraycopy(gids[i].getRawId(), 0, raw, GLOBAL_ID_SIZE * i, GLOBAL_ID_SIZE);
                stamps[i] = timestamps.get(gids[i]);
            }
            out.writeInt(gids.length);
            out.writeBytes(raw);
            out.writeLongs(stamps, 0, stamps.length);
        });
    }

    /** Loads what {@link #write} wrote into this empty set; throws CorruptStateException if the file is not usable. */
    void read(Path file) throws IOException {
        if ( ! timestamps.isEmpty()) throw new IllegalStateException("State is loaded into an empty set only");
        StateFile.removeTemporary(file);
        Map<GlobalId, Long> loaded = StateFile.read(file, MAGIC, in -> {
            int version = in.readInt();
            if (version != FORMAT_VERSION) throw new CorruptStateException("format version " + version + ", not " + FORMAT_VERSION);
            int count = in.readInt();
            byte[] raw = in.readBytes();
            if (count < 0 || raw.length != GLOBAL_ID_SIZE * count) throw new CorruptStateException("Global ids do not fit the count " + count);
            long[] stamps = new long[count];
            in.readLongs(stamps, 0, count);
            Map<GlobalId, Long> copies = new HashMap<>();
            for (int i = 0; i < count; i++)
                copies.put(new GlobalId(Arrays.copyOfRange(raw, GLOBAL_ID_SIZE * i, GLOBAL_ID_SIZE * (i + 1))), stamps[i]);
            if (copies.size() != count) throw new CorruptStateException("Duplicate global ids");
            return copies;
        }).state();
        timestamps.putAll(loaded);
        changes = 0;
    }

}
