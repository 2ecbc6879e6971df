package ai.dwell.runtime.index;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Multi-vector nearestNeighbor on tensor&lt;float&gt;(p{},x[n]): a document's distance is that of its closest vector; the
 * hits are the targetHits closest documents (not vectors). Hand-computed cases, and random documents against a
 * brute-force minimum over their vectors written here with plain loops.
 */
public class MultiVectorIndexTest {

    private static final TensorType TYPE = TensorType.fromSpec("tensor<float>(p{},x[2])");

    @Test
    void aDocumentsDistanceIsItsClosestVectorsAndHitsCountDocuments() {
        MultiVectorIndex index = new MultiVectorIndex(TYPE, DistanceMetric.EUCLIDEAN);
        index.set(0, tensor(TYPE, "a", 3, 4, "b", 10, 0));   // distances from (0,0): 5 and 10
        index.set(1, tensor(TYPE, "x", 0, 6));               // 6
        index.set(2, tensor(TYPE, "0", 1, 0, "1", 0, 1, "2", 0, 0.5f)); // 1, 1, 0.5
        index.set(3, tensor(TYPE));                          // no vectors
        float[] origin = { 0, 0 };
        assertEquals(5, index.distance(origin, 0), 1e-6);
        assertEquals(6, index.distance(origin, 1), 1e-6);
        assertEquals(0.5, index.distance(origin, 2), 1e-6);
        assertEquals(Double.MAX_VALUE, index.distance(origin, 3));
        assertEquals(0, index.closeness(origin, 3));
        assertEquals(1 / 1.5, index.closeness(origin, 2), 1e-6);
        assertEquals("a", index.label(0, index.closestSubspace(origin, 0)));
        assertEquals("2", index.label(2, index.closestSubspace(origin, 2)));
        assertEquals(-1, index.closestSubspace(origin, 3));
        assertEquals(3, index.size());

        // two hits are two documents, though document 2 alone has three vectors closer than document 0's
        var hits = index.search(origin, 2, 0, null, true, 0.05, Double.POSITIVE_INFINITY);
        assertArrayEquals(new int[] { 2, 0 }, hits.lids());
        assertArrayEquals(new double[] { 0.5, 5 }, hits.distances(), 1e-6);
        assertTrue(hits.exact());

        BitSet filter = new BitSet();
        filter.set(0);
        filter.set(1);
        filter.set(3);
        assertArrayEquals(new int[] { 0, 1 }, index.search(origin, 10, 0, filter, true, 0.05, Double.POSITIVE_INFINITY).lids());
        assertArrayEquals(new int[] { 2, 0 }, index.search(origin, 10, 0, null, false, 0.05, 5.5).lids(), "distanceThreshold");
    }

    @Test
    void replacingAndClearingChangeTheVectors() {
        MultiVectorIndex index = new MultiVectorIndex(TYPE, DistanceMetric.EUCLIDEAN);
        index.set(4, tensor(TYPE, "a", 1, 1));
        index.set(4, tensor(TYPE, "b", 2, 0, "c", 0, 3));
        assertEquals(2, index.vectors(4).length);
        assertEquals(1, index.distance(new float[] { 3, 0 }, 4), 1e-6);
        assertEquals("b", index.label(4, index.closestSubspace(new float[] { 3, 0 }, 4)));
        index.clear(4);
        assertEquals(0, index.size());
        assertEquals(0, index.search(new float[] { 0, 0 }, 5, 0, null, true, 0.05, Double.POSITIVE_INFINITY).size());
        index.set(4, tensor(TYPE));
        assertEquals(0, index.size());
    }

    @Test
    void theAngularDistanceOfTheClosestVector() {
        MultiVectorIndex index = new MultiVectorIndex(TYPE, DistanceMetric.ANGULAR);
        index.set(0, tensor(TYPE, "west", -1, 0, "north", 0, 2)); // 180° and 90° from (1,0)
        assertEquals(Math.PI / 2, index.distance(new float[] { 1, 0 }, 0), 1e-6);
        assertEquals("north", index.label(0, index.closestSubspace(new float[] { 1, 0 }, 0)));
        assertEquals(1 / (1 + Math.PI / 2), index.closeness(new float[] { 1, 0 }, 0), 1e-6);
        MultiVectorIndex dot = new MultiVectorIndex(TYPE, DistanceMetric.DOTPRODUCT);
        dot.set(0, tensor(TYPE, "a", 1, 2, "b", 3, -1));  // dot products with (2,1): 4 and 5
        assertEquals(-5, dot.distance(new float[] { 2, 1 }, 0), 1e-6);
        assertEquals(5, dot.closeness(new float[] { 2, 1 }, 0), 1e-6);
    }

    @Test
    void aFlushedAttributeIsRestoredWithItsVectors() throws java.io.IOException {
        TensorAttribute attribute = new TensorAttribute("vecs", TYPE, new MultiVectorIndex(TYPE, DistanceMetric.EUCLIDEAN));
        attribute.set(1, new com.yahoo.document.datatypes.TensorFieldValue(tensor(TYPE, "a", 3, 4, "b", 1, 0)));
        attribute.set(3, new com.yahoo.document.datatypes.TensorFieldValue(tensor(TYPE, "c", 0, 2)));
        attribute.set(2, new com.yahoo.document.datatypes.TensorFieldValue(tensor(TYPE, "d", 0, 0)));
        attribute.clear(2);
        var bytes = new java.io.ByteArrayOutputStream();
        var out = new ai.dwell.runtime.format.StateOutput(java.nio.channels.Channels.newChannel(bytes));
        attribute.writeState(out, 4);
        out.flush();
        TensorAttribute restored = new TensorAttribute("vecs", TYPE, new MultiVectorIndex(TYPE, DistanceMetric.EUCLIDEAN));
        restored.readState(new ai.dwell.runtime.format.StateInput(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(bytes.toByteArray())),
                                                                  bytes.size()), 4);
        MultiVectorIndex vectors = restored.multiVectors().orElseThrow();
        assertEquals(2, vectors.size());
        assertEquals(attribute.tensor(1), restored.tensor(1));
        assertArrayEquals(new int[] { 1, 3 }, vectors.search(new float[] { 0, 0 }, 5, 0, null, true, 0.05, Double.POSITIVE_INFINITY).lids());
        assertEquals(1, vectors.distance(new float[] { 0, 0 }, 1), 1e-6);
        assertEquals("b", vectors.label(1, vectors.closestSubspace(new float[] { 0, 0 }, 1)));
    }

    @Test
    void onlyOneMappedAndOneIndexedDimension() {
        assertTrue(MultiVectorIndex.isMultiVector(TensorType.fromSpec("tensor<bfloat16>(x[4],p{})")));
        assertTrue( ! MultiVectorIndex.isMultiVector(TensorType.fromSpec("tensor<float>(x[4])")));
        assertTrue( ! MultiVectorIndex.isMultiVector(TensorType.fromSpec("tensor<float>(p{},q{},x[4])")));
        assertTrue( ! MultiVectorIndex.isMultiVector(TensorType.fromSpec("tensor<float>(p{},x[])")));
        assertThrows(IllegalArgumentException.class, () -> new MultiVectorIndex(TensorType.fromSpec("tensor(p{})"), DistanceMetric.EUCLIDEAN));
        assertEquals(TensorType.fromSpec("tensor<float>(x[2])"), new MultiVectorIndex(TYPE, DistanceMetric.EUCLIDEAN).queryType());
    }

    /** Random documents with 0 to 6 vectors, random filters and targetHits: the hits equal a brute-force minimum over each document's vectors. */
    @Test
    void randomDocumentsAgainstABruteForceMinimumOverTheirVectors() {
        Random random = new Random(33);
        TensorType type = TensorType.fromSpec("tensor<float>(p{},x[5])");
        for (DistanceMetric metric : DistanceMetric.values()) {
            MultiVectorIndex index = new MultiVectorIndex(type, metric);
            List<float[][]> docs = new ArrayList<>();
            for (int lid = 0; lid < 300; lid++) {
                float[][] vectors = new float[random.nextInt(7)][];
                Tensor.Builder builder = Tensor.Builder.of(type);
                for (int s = 0; s < vectors.length; s++) {
                    vectors[s] = randomVector(random, 5, metric);
                    for (int x = 0; x < 5; x++) builder.cell(TensorAddress.ofLabels("s" + s, String.valueOf(x)), vectors[s][x]);
                }
                docs.add(vectors);
                index.set(lid, builder.build());
            }
            for (int q = 0; q < 40; q++) {
                float[] query = randomVector(random, 5, metric);
                int targetHits = 1 + random.nextInt(20);
                BitSet filter = null;
                if (random.nextBoolean()) {
                    filter = new BitSet();
                    for (int lid = 0; lid < docs.size(); lid++) if (random.nextInt(3) == 0) filter.set(lid);
                }
                List<double[]> expected = new ArrayList<>(); // {lid, distance, closest subspace}
                for (int lid = 0; lid < docs.size(); lid++) {
                    if (filter != null && ! filter.get(lid) || docs.get(lid).length == 0) continue;
                    double best = Double.POSITIVE_INFINITY;
                    int closest = -1;
                    for (int s = 0; s < docs.get(lid).length; s++) {
                        double d = plainDistance(metric, query, docs.get(lid)[s]);
                        if (d < best) { best = d; closest = s; }
                    }
                    expected.add(new double[] { lid, best, closest });
                }
                expected.sort(Comparator.<double[]>comparingDouble(e -> e[1]).thenComparingDouble(e -> e[0]));
                var hits = index.search(query, targetHits, 0, filter, true, 0.05, Double.POSITIVE_INFINITY);
                int n = Math.min(targetHits, expected.size());
                assertEquals(n, hits.size(), metric + " query " + q);
                for (int i = 0; i < n; i++) {
                    int lid = (int) expected.get(i)[0];
                    assertEquals(expected.get(i)[1], hits.distances()[i], 1e-5, metric + " query " + q + " hit " + i);
                    if (hits.lids()[i] != lid) // only equally distant documents may trade places
                        assertEquals(expected.get(i)[1], index.distance(query, hits.lids()[i]), 1e-5, metric + " query " + q + " hit " + i);
                    assertEquals(expected.get(i)[1], index.distance(query, lid), 1e-5);
                    assertEquals("s" + (int) expected.get(i)[2], index.label(lid, index.closestSubspace(query, lid)));
                }
            }
        }
    }

    @Test
    void searchingAllocatesNothingPerDocument() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Random random = new Random(7);
        TensorType type = TensorType.fromSpec("tensor<float>(p{},x[16])");
        MultiVectorIndex index = new MultiVectorIndex(type, DistanceMetric.EUCLIDEAN);
        for (int lid = 0; lid < 20_000; lid++) {
            Tensor.Builder builder = Tensor.Builder.of(type);
            for (int s = 0; s < 3; s++)
                for (int x = 0; x < 16; x++) builder.cell(TensorAddress.ofLabels(String.valueOf(s), String.valueOf(x)), random.nextFloat());
            index.set(lid, builder.build());
        }
        float[] query = randomVector(random, 16, DistanceMetric.EUCLIDEAN);
        // The vector API (VectorMath's SIMD) allocates its vectors until the JIT's second tier compiles the loop, which
        // may wait behind other compilations on a busy machine: search until compiled, for up to 30 s, and take the least
        long least = Long.MAX_VALUE;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (least >= 4096 && System.nanoTime() < deadline) {
            long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            index.search(query, 10, 0, null, true, 0.05, Double.POSITIVE_INFINITY);
            least = Math.min(least, threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before);
        }
        assertTrue(least < 4096, "one search over 20000 documents allocated at least " + least + " bytes");
    }

    private static float[] randomVector(Random random, int n, DistanceMetric metric) {
        float[] v = new float[n];
        switch (metric) {
            case HAMMING -> { // int8 cells of packed bits
                for (int i = 0; i < n; i++) v[i] = random.nextInt(256) - 128;
                return v;
            }
            case HAMMING_CELLS -> { // few values, so that cells are often equal
                for (int i = 0; i < n; i++) v[i] = random.nextInt(3) * 0.5f;
                return v;
            }
            case GEODEGREES -> { // latitude and longitude; the other cells are not read
                v[0] = (float) (random.nextDouble() * 180 - 90);
                v[1] = (float) (random.nextDouble() * 360 - 180);
                return v;
            }
            default -> {}
        }
        double norm = 0;
        for (int i = 0; i < n; i++) {
            v[i] = (float) random.nextGaussian();
            norm += v[i] * v[i];
        }
        if (metric == DistanceMetric.PRENORMALIZED_ANGULAR)
            for (int i = 0; i < n; i++) v[i] = (float) (v[i] / Math.sqrt(norm));
        return v;
    }

    /** Vespa's distances, written out with plain loops. */
    private static double plainDistance(DistanceMetric metric, float[] a, float[] b) {
        double dot = 0, aa = 0, bb = 0, squares = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            aa += a[i] * a[i];
            bb += b[i] * b[i];
            squares += (a[i] - b[i]) * (a[i] - b[i]);
        }
        return switch (metric) {
            case EUCLIDEAN -> Math.sqrt(squares);
            case ANGULAR -> Math.acos(Math.max(-1, Math.min(1, dot / Math.sqrt(aa * bb))));
            case PRENORMALIZED_ANGULAR -> Math.max(0, 1 - dot);
            case DOTPRODUCT -> -dot;
            case HAMMING -> {
                int bits = 0;
                for (int i = 0; i < a.length; i++)
                    for (int bit = 0; bit < 8; bit++) if ((((int) a[i] >> bit) & 1) != (((int) b[i] >> bit) & 1)) bits++;
                yield bits;
            }
            case HAMMING_CELLS -> {
                int cells = 0;
                for (int i = 0; i < a.length; i++) if (a[i] != b[i]) cells++;
                yield cells;
            }
            case GEODEGREES -> { // the spherical law of cosines
                double latA = Math.toRadians(a[0]), latB = Math.toRadians(b[0]), lonDiff = Math.toRadians(a[1]) - Math.toRadians(b[1]);
                double cos = Math.sin(latA) * Math.sin(latB) + Math.cos(latA) * Math.cos(latB) * Math.cos(lonDiff);
                yield 6371.0088 * Math.acos(Math.max(-1, Math.min(1, cos)));
            }
        };
    }

    /** A tensor of the type from label, x0, x1, label, x0, x1, ... */
    private static Tensor tensor(TensorType type, Object... cells) {
        Tensor.Builder builder = Tensor.Builder.of(type);
        for (int i = 0; i < cells.length; i += 3) {
            builder.cell(TensorAddress.ofLabels((String) cells[i], "0"), ((Number) cells[i + 1]).doubleValue());
            builder.cell(TensorAddress.ofLabels((String) cells[i], "1"), ((Number) cells[i + 2]).doubleValue());
        }
        return builder.build();
    }

}
