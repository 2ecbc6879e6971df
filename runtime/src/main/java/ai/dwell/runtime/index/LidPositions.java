package ai.dwell.runtime.index;

/**
 * The positions of one term in each document that has it: a map from local id to a sorted int array,
 * with open addressing over primitive keys, so that looking positions up (bm25, phrases) boxes nothing.
 */
final class LidPositions {

    private static final int[] NONE = new int[0];
    private static final int FREE = 0; // local id 0 is never used

    private int[] keys = new int[8];
    private int[][] values = new int[8][];
    private int size;

    /** The positions in the document, or an empty array. */
    int[] get(int lid) {
        int mask = keys.length - 1;
        for (int slot = hash(lid) & mask; keys[slot] != FREE; slot = (slot + 1) & mask)
            if (keys[slot] == lid) return values[slot];
        return NONE;
    }

    void put(int lid, int[] positions) {
        if (lid == FREE) throw new IllegalArgumentException("Local id 0 is reserved");
        if ((size + 1) * 2 > keys.length) resize(keys.length * 2);
        int mask = keys.length - 1;
        int slot = hash(lid) & mask;
        while (keys[slot] != FREE && keys[slot] != lid) slot = (slot + 1) & mask;
        if (keys[slot] == FREE) size++;
        keys[slot] = lid;
        values[slot] = positions;
    }

    void remove(int lid) {
        int mask = keys.length - 1;
        int slot = hash(lid) & mask;
        while (keys[slot] != lid) {
            if (keys[slot] == FREE) return;
            slot = (slot + 1) & mask;
        }
        // Backward-shift deletion: move later entries of the probe chain into the gap
        int gap = slot;
        for (int next = (gap + 1) & mask; keys[next] != FREE; next = (next + 1) & mask) {
            int home = hash(keys[next]) & mask;
            if (((next - home) & mask) >= ((next - gap) & mask)) {
                keys[gap] = keys[next];
                values[gap] = values[next];
                gap = next;
            }
        }
        keys[gap] = FREE;
        values[gap] = null;
        size--;
    }

    int size() { return size; }

    private void resize(int capacity) {
        int[] oldKeys = keys;
        int[][] oldValues = values;
        keys = new int[capacity];
        values = new int[capacity][];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) if (oldKeys[i] != FREE) put(oldKeys[i], oldValues[i]);
    }

    private static int hash(int lid) {
        int h = lid * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

}
