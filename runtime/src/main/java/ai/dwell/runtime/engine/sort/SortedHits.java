package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.DocumentIndex;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The matches of a query with a sort spec: each gets its sort blob, and they are ordered by blob (unsigned bytes,
 * a shorter prefix first), then by global id, which is how the dispatcher merges the nodes' hits
 * (LeanHit.compareTo), so that a node's order agrees with the merged order.
 */
public final class SortedHits {

    private final List<SortField> fields;
    private final SortBlobs blobs = new SortBlobs();
    private final List<DocumentIndex> indexes = new ArrayList<>();
    private int[] indexOf = new int[16];
    private int[] lids = new int[16];
    private double[] relevance = new double[16];
    private byte[] gids = new byte[16 * 12];

    public SortedHits(List<SortField> fields) { this.fields = fields; }

    /** Adds the ranked matches of one index: their local ids and relevance, best first. */
    public void add(DocumentIndex index, int[] rankedLids, double[] rankedRelevance) {
        List<SortBlobWriter> writers = fields.stream().map(field -> SortBlobWriter.of(field, index)).toList();
        indexes.add(index);
        int indexNumber = indexes.size() - 1;
        for (int i = 0; i < rankedLids.length; i++) {
            int hit = blobs.count();
            ensure(hit + 1);
            int lid = rankedLids[i];
            indexOf[hit] = indexNumber;
            lids[hit] = lid;
            relevance[hit] = rankedRelevance[i];
            System.arraycopy(index.globalId(lid).getRawId(), 0, gids, hit * 12, 12);
            for (SortBlobWriter writer : writers) writer.write(lid, relevance[hit], blobs);
            blobs.endBlob();
        }
    }

    /** The first count hits in sort order, each with its sort blob. */
    public List<RankedHit> first(int count) {
        int n = blobs.count();
        int[] positions = new int[n];
        for (int i = 0; i < n; i++) positions[i] = i;
        mergeSort(positions, new int[n], 0, n);
        List<RankedHit> result = new ArrayList<>(Math.min(count, n));
        for (int i = 0; i < Math.min(count, n); i++) {
            int hit = positions[i];
            result.add(new RankedHit(indexes.get(indexOf[hit]).name(), lids[hit], relevance[hit], blobs.blob(hit)));
        }
        return result;
    }

    private int compare(int a, int b) {
        byte[] data = blobs.data();
        int byBlob = Arrays.compareUnsigned(data, blobs.start(a), blobs.end(a), data, blobs.start(b), blobs.end(b));
        return byBlob != 0 ? byBlob : Arrays.compareUnsigned(gids, a * 12, a * 12 + 12, gids, b * 12, b * 12 + 12);
    }

    private void mergeSort(int[] positions, int[] scratch, int from, int to) {
        if (to - from < 2) return;
        int middle = (from + to) >>> 1;
        mergeSort(positions, scratch, from, middle);
        mergeSort(positions, scratch, middle, to);
        if (compare(positions[middle - 1], positions[middle]) <= 0) return;
        System.arraycopy(positions, from, scratch, from, to - from);
        for (int i = from, left = from, right = middle; i < to; i++) {
            if (right >= to || (left < middle && compare(scratch[left], scratch[right]) <= 0)) positions[i] = scratch[left++];
            else positions[i] = scratch[right++];
        }
    }

    private void ensure(int size) {
        if (size <= lids.length) return;
        int capacity = lids.length * 2;
        indexOf = Arrays.copyOf(indexOf, capacity);
        lids = Arrays.copyOf(lids, capacity);
        relevance = Arrays.copyOf(relevance, capacity);
        gids = Arrays.copyOf(gids, capacity * 12);
    }

}
