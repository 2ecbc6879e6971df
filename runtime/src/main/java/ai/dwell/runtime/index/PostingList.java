package ai.dwell.runtime.index;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The local ids that hold one term or value, as a sorted, growable int array: 4 bytes per id,
 * whatever the size of the lid space. (A BitSet per value costs lid space / 8 bytes each, so a field
 * with a value per document, such as an id or a timestamp with fast-search, or a reference to one of
 * many authors, grew with the square of the documents: 200,000 authors took gigabytes.) Ids mostly arrive in increasing order, so adding is an append;
 * a reused id is inserted in place.
 */
public final class PostingList {

    private int[] lids = new int[2];
    private int size = 0;

    void add(int lid) {
        if (size > 0 && lids[size - 1] >= lid) {
            int at = Arrays.binarySearch(lids, 0, size, lid);
            if (at >= 0) return;
            insert(-at - 1, lid);
            return;
        }
        if (size == lids.length) lids = Arrays.copyOf(lids, size + Math.max(2, size >> 1));
        lids[size++] = lid;
    }

    void remove(int lid) {
        int at = Arrays.binarySearch(lids, 0, size, lid);
        if (at < 0) return;
        System.arraycopy(lids, at + 1, lids, at, size - at - 1);
        size--;
        if (size < lids.length >> 2 && lids.length > 8) lids = Arrays.copyOf(lids, Math.max(2, size * 2));
    }

    public int size() { return size; }

    /** The id at this index, in increasing order of ids: {@code for (int i = 0; i < size(); i++) lid(i)}. */
    public int lid(int index) {
        if (index >= size) throw new IndexOutOfBoundsException(index + " of " + size);
        return lids[index];
    }

    public boolean isEmpty() { return size == 0; }

    public boolean contains(int lid) { return Arrays.binarySearch(lids, 0, size, lid) >= 0; }

    /** Sets the bit of each id in the result. */
    public void orInto(BitSet result) {
        for (int i = 0; i < size; i++) result.set(lids[i]);
    }

    /** Sets the bit of each id that is also among the candidates. */
    public void orInto(BitSet result, BitSet candidates) {
        for (int i = 0; i < size; i++)
            if (candidates.get(lids[i])) result.set(lids[i]);
    }

    /** Clears every bit of the set that is not an id of this. */
    public void retainIn(BitSet set) {
        int next = 0;
        for (int lid = set.nextSetBit(0); lid >= 0; lid = set.nextSetBit(lid + 1)) {
            while (next < size && lids[next] < lid) next++;
            if (next == size || lids[next] != lid) set.clear(lid);
        }
    }

    private void insert(int at, int lid) {
        if (size == lids.length) lids = Arrays.copyOf(lids, size + Math.max(2, size >> 1));
        System.arraycopy(lids, at, lids, at + 1, size - at);
        lids[at] = lid;
        size++;
    }

}
