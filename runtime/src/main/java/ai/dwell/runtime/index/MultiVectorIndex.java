package ai.dwell.runtime.index;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The vectors of one mixed tensor attribute with one mapped and one indexed dimension, tensor&lt;T&gt;(m{},x[n]), by local
 * id, for nearestNeighbor: each document holds any number of vectors (its subspaces, each labeled by the mapped
 * dimension), and its distance to a query is that of its closest vector, as proton's multi-vector indexing.
 *
 * Search is always exact: every candidate document's vectors are compared with the query, so the hits are those of
 * Vespa's exact search ({@code approximate:false}); the schema's {@code index { hnsw }} builds no graph here, so
 * approximate-threshold and exploreAdditionalHits change nothing, and targetHits counts documents, as in proton.
 * Searching and reading distances allocate nothing per document.
 *
 * Not thread safe for writes: the owning index serializes writes against searches; searches may run concurrently.
 */
public final class MultiVectorIndex implements VectorSearch {

    private static final float[][] NO_VECTORS = new float[0][];

    private final TensorType type;
    private final int mappedDimension, indexedDimension, dimensions;
    private final DistanceMetric metric;

    private float[][][] vectors = new float[0][][]; // by local id: the document's vectors, null when it has none
    private String[][] labels = new String[0][];    // by local id: the mapped label of each vector
    private int documents = 0;

    /** @param type a tensor type with one mapped and one indexed dimension of known size */
    public MultiVectorIndex(TensorType type, DistanceMetric metric) {
        if ( ! isMultiVector(type))
            throw new IllegalArgumentException(type + " is not a tensor with one mapped and one indexed dimension of known size");
        this.type = type;
        this.mappedDimension = type.dimensions().get(0).isMapped() ? 0 : 1;
        this.indexedDimension = 1 - mappedDimension;
        this.dimensions = (int) type.dimensions().get(indexedDimension).size().get().longValue();
        this.metric = metric;
    }

    /** Whether the type is tensor&lt;T&gt;(m{},x[n]): one mapped dimension and one indexed dimension of known size. */
    public static boolean isMultiVector(TensorType type) {
        return type.rank() == 2 && type.dimensions().stream().filter(TensorType.Dimension::isMapped).count() == 1 &&
               type.dimensions().stream().anyMatch(d -> d.isIndexed() && d.size().isPresent());
    }

    /** The type of a query vector: the indexed dimension, in the attribute's cell type. */
    public TensorType queryType() { return type.indexedSubtype(); }

    /** The name of the mapped dimension. */
    public String mappedDimensionName() { return type.dimensions().get(mappedDimension).name(); }

    @Override public int dimensions() { return dimensions; }
    @Override public DistanceMetric metric() { return metric; }

    /** The number of documents with at least one vector. */
    public int size() { return documents; }

    /** Sets the vectors of a local id from a tensor of this type; an empty tensor leaves it with none. */
    public void set(int lid, Tensor tensor) {
        Map<String, float[]> subspaces = new LinkedHashMap<>();
        for (Iterator<Tensor.Cell> cells = tensor.cellIterator(); cells.hasNext(); ) {
            Tensor.Cell cell = cells.next();
            TensorAddress address = cell.getKey();
            float[] vector = subspaces.computeIfAbsent(address.label(mappedDimension), label -> new float[dimensions]);
            vector[(int) address.numericLabel(indexedDimension)] = cell.getValue().floatValue();
        }
        if (subspaces.isEmpty()) {
            clear(lid);
            return;
        }
        if (lid >= vectors.length) {
            vectors = Arrays.copyOf(vectors, Attribute.grow(vectors.length, lid));
            labels = Arrays.copyOf(labels, vectors.length);
        }
        if (vectors[lid] == null) documents++;
        vectors[lid] = subspaces.values().toArray(NO_VECTORS);
        labels[lid] = subspaces.keySet().toArray(new String[0]);
    }

    /** Removes the vectors of a local id, if it has any. */
    public void clear(int lid) {
        if (lid >= vectors.length || vectors[lid] == null) return;
        vectors[lid] = null;
        labels[lid] = null;
        documents--;
    }

    /** The vectors of a local id (not to be modified), none when it has none. */
    public float[][] vectors(int lid) {
        return lid >= 0 && lid < vectors.length && vectors[lid] != null ? vectors[lid] : NO_VECTORS;
    }

    /** The label (of the mapped dimension) of the given vector of a local id. */
    public String label(int lid, int subspace) { return labels[lid][subspace]; }

    /** The index of the document's vector closest to the query (the first of equally close ones), or -1 when it has none. */
    public int closestSubspace(float[] query, int lid) {
        float[][] own = vectors(lid);
        int closest = -1;
        double best = Double.POSITIVE_INFINITY;
        for (int i = 0; i < own.length; i++) {
            double distance = metric.distance(query, own[i]);
            if (distance < best || closest < 0) {
                best = distance;
                closest = i;
            }
        }
        return closest;
    }

    @Override
    public double distance(float[] query, int lid) {
        float[][] own = vectors(lid);
        if (own.length == 0) return Double.MAX_VALUE;
        double best = Double.POSITIVE_INFINITY;
        for (float[] vector : own) best = Math.min(best, metric.distance(query, vector));
        return best;
    }

    /** The targetHits closest documents, always by exact search (approximate, approximateThreshold and exploreAdditionalHits are not used). */
    @Override
    public NearestNeighborIndex.Neighbors search(float[] query, int targetHits, int exploreAdditionalHits, BitSet filter,
                                                 boolean approximate, double approximateThreshold, double distanceThreshold) {
        if (query.length != dimensions)
            throw new IllegalArgumentException("The query vector has " + query.length + " dimensions, the attribute " + dimensions);
        if (targetHits <= 0 || documents == 0) return new NearestNeighborIndex.Neighbors(new int[0], new double[0], true);
        ClosestDocuments top = new ClosestDocuments(targetHits);
        if (filter == null) {
            for (int lid = 0; lid < vectors.length; lid++)
                if (vectors[lid] != null) offer(top, query, lid, distanceThreshold);
        }
        else {
            for (int lid = filter.nextSetBit(0); lid >= 0 && lid < vectors.length; lid = filter.nextSetBit(lid + 1))
                if (vectors[lid] != null) offer(top, query, lid, distanceThreshold);
        }
        return top.neighbors();
    }

    private void offer(ClosestDocuments top, float[] query, int lid, double distanceThreshold) {
        double distance = distance(query, lid);
        if (distance <= distanceThreshold) top.offer(lid, distance);
    }

    /** The k closest documents: a bounded max-heap on distance (the farthest kept on top); of equally far ones the first offered stay. */
    private static final class ClosestDocuments {
        private final int[] lids;
        private final double[] distances;
        private int size = 0;

        ClosestDocuments(int k) {
            lids = new int[k];
            distances = new double[k];
        }

        void offer(int lid, double distance) {
            if (size < lids.length) {
                lids[size] = lid;
                distances[size] = distance;
                up(size++);
            }
            else if (distance < distances[0]) {
                lids[0] = lid;
                distances[0] = distance;
                down(0);
            }
        }

        /** The kept documents, closest first (by local id among equally close ones). */
        NearestNeighborIndex.Neighbors neighbors() {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) order[i] = i;
            Arrays.sort(order, (a, b) -> distances[a] != distances[b] ? Double.compare(distances[a], distances[b]) : Integer.compare(lids[a], lids[b]));
            int[] outLids = new int[size];
            double[] outDistances = new double[size];
            for (int i = 0; i < size; i++) {
                outLids[i] = lids[order[i]];
                outDistances[i] = distances[order[i]];
            }
            return new NearestNeighborIndex.Neighbors(outLids, outDistances, true);
        }

        private boolean farther(int a, int b) {
            return distances[a] > distances[b] || distances[a] == distances[b] && lids[a] > lids[b];
        }

        private void up(int i) {
            while (i > 0) {
                int parent = (i - 1) / 2;
                if ( ! farther(i, parent)) return;
                swap(i, parent);
                i = parent;
            }
        }

        private void down(int i) {
            while (true) {
                int left = 2 * i + 1, right = left + 1, largest = i;
                if (left < size && farther(left, largest)) largest = left;
                if (right < size && farther(right, largest)) largest = right;
                if (largest == i) return;
                swap(i, largest);
                i = largest;
            }
        }

        private void swap(int a, int b) {
            int l = lids[a]; lids[a] = lids[b]; lids[b] = l;
            double d = distances[a]; distances[a] = distances[b]; distances[b] = d;
        }
    }

}
