package ai.dwell.runtime.match.iterator;

import java.util.Arrays;

/** A growable array of local ids, added in increasing order: what matching hands to ranking. */
public final class LocalIds {

    private int[] ids;
    private int size = 0;

    public LocalIds(int capacity) { this.ids = new int[Math.max(1, capacity)]; }

    /** Makes room for this many ids in all, so that adding up to that many does not grow the array again. */
    public void ensureCapacity(int capacity) {
        if (capacity > ids.length) ids = Arrays.copyOf(ids, Math.max(capacity, size * 2));
    }

    public void add(int id) {
        if (size == ids.length) ids = Arrays.copyOf(ids, size * 2);
        ids[size++] = id;
    }

    /** The ids: the first {@link #size} of this array (not a copy). */
    public int[] array() { return ids; }

    public int size() { return size; }

}
