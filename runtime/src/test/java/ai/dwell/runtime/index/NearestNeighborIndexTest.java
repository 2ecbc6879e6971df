package ai.dwell.runtime.index;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HNSW graph against exact search on clustered unit vectors (as sentence embeddings are; random
 * Gaussian vectors would make any graph look broken): recall, filters applied during the search, the
 * exact fallback below the approximate threshold, replaced and removed vectors, and Vespa's distances.
 */
public class NearestNeighborIndexTest {

    private static final int DIMENSIONS = 32, DOCUMENTS = 20000, CLUSTERS = 40, QUERIES = 40, K = 10;
    private static final NearestNeighborIndex.HnswSettings HNSW = new NearestNeighborIndex.HnswSettings(16, 200);

    private static final Random random = new Random(7);
    private static final float[][] centers = IntStream.range(0, CLUSTERS).mapToObj(i -> gaussian(1.0)).toArray(float[][]::new);
    /** One corpus and its graph for the tests that only search (building it is most of the time). */
    private static float[][] vectors;
    private static NearestNeighborIndex shared;

    private static synchronized NearestNeighborIndex shared() {
        if (shared == null) {
            vectors = corpus();
            shared = index(vectors, DistanceMetric.PRENORMALIZED_ANGULAR);
        }
        return shared;
    }

    @Test
    void graphSearchFindsWhatExactSearchFinds() {
        NearestNeighborIndex index = shared();
        double recall = 0;
        for (int q = 0; q < QUERIES; q++) {
            float[] query = near(centers[q % CLUSTERS]);
            var approximate = index.search(query, K, 40, null, true, 0.05, Double.POSITIVE_INFINITY);
            var exact = index.search(query, K, 0, null, false, 0.05, Double.POSITIVE_INFINITY);
            assertFalse(approximate.exact());
            assertTrue(exact.exact());
            assertEquals(K, approximate.size());
            recall += overlap(approximate.lids(), exact.lids()) / (double) K;
            for (int i = 1; i < approximate.size(); i++) assertTrue(approximate.distances()[i - 1] <= approximate.distances()[i], "closest first");
        }
        assertTrue(recall / QUERIES >= 0.95, "recall@10 " + recall / QUERIES);
    }

    @Test
    void filtersApplyDuringTheGraphSearch() {
        NearestNeighborIndex index = shared();
        BitSet article = new BitSet(); // every fourth document: 25% of the corpus, spread over all clusters
        for (int lid = 1; lid <= DOCUMENTS; lid += 4) article.set(lid);
        double recall = 0;
        for (int q = 0; q < QUERIES; q++) {
            float[] query = near(centers[q % CLUSTERS]);
            var filtered = index.search(query, K, 40, article, true, 0.0, Double.POSITIVE_INFINITY);
            var exact = index.search(query, K, 0, article, false, 0.0, Double.POSITIVE_INFINITY);
            assertFalse(filtered.exact(), "25% passes: the graph is searched");
            assertEquals(K, filtered.size(), "a filtered search still finds targetHits");
            for (int lid : filtered.lids()) assertTrue(article.get(lid), "only documents the filter passes");
            recall += overlap(filtered.lids(), exact.lids()) / (double) K;
        }
        assertTrue(recall / QUERIES >= 0.95, "filtered recall@10 " + recall / QUERIES);
    }

    @Test
    void smallFiltersAreSearchedExactly() {
        NearestNeighborIndex index = shared();
        BitSet article = new BitSet();
        for (int lid = 5; lid <= DOCUMENTS; lid += 200) article.set(lid); // 0.5% of the corpus
        float[] query = near(centers[3]);
        var result = index.search(query, K, 0, article, true, 0.05, Double.POSITIVE_INFINITY);
        assertTrue(result.exact(), "below approximate-threshold the search is exact");
        int[] expected = IntStream.range(1, DOCUMENTS + 1).filter(article::get).boxed()
                                  .sorted((a, b) -> Double.compare(DistanceMetric.PRENORMALIZED_ANGULAR.distance(query, vectors[a]),
                                                                   DistanceMetric.PRENORMALIZED_ANGULAR.distance(query, vectors[b])))
                                  .limit(K).mapToInt(Integer::intValue).toArray();
        assertArrayEquals(expected, result.lids());
    }

    @Test
    void replacedAndRemovedVectorsAreSearchedAsTheyAreNow() {
        float[][] vectors = corpus();
        NearestNeighborIndex index = new NearestNeighborIndex(DIMENSIONS, DistanceMetric.EUCLIDEAN, HNSW);
        int documents = 3000;
        for (int lid = 1; lid <= documents; lid++) index.set(lid, vectors[lid]);
        float[] target = near(centers[0]);
        index.set(17, target);           // moved next to the query
        index.clear(18);                 // gone
        index.set(19, vectors[19]);      // unchanged: no new graph node
        var result = index.search(target, K, 40, null, true, 0.05, Double.POSITIVE_INFINITY);
        assertEquals(17, result.lids()[0]);
        assertEquals(0, result.distances()[0], 1e-6);
        assertTrue(Arrays.stream(result.lids()).noneMatch(lid -> lid == 18));
        for (int round = 0; round < 2; round++)  // replace everything twice: dead nodes outnumber live ones, the graph is rebuilt
            for (int lid = 1; lid <= documents; lid++) index.set(lid, near(centers[lid % CLUSTERS]));
        assertEquals(documents, index.size());
        float[] query = near(centers[5]);
        var afterRebuild = index.search(query, K, 40, null, true, 0.05, Double.POSITIVE_INFINITY);
        var exact = index.search(query, K, 0, null, false, 0.05, Double.POSITIVE_INFINITY);
        assertEquals(K, afterRebuild.size());
        assertTrue(overlap(afterRebuild.lids(), exact.lids()) >= 8, "the rebuilt graph finds what exact search finds");
    }

    @Test
    void distancesAreVespas() {
        float[] a = {1, 0, 0}, b = {0.6f, 0.8f, 0};
        assertEquals(Math.acos(0.6), DistanceMetric.ANGULAR.distance(a, b), 1e-6);
        assertEquals(1 - 0.6, DistanceMetric.PRENORMALIZED_ANGULAR.distance(a, b), 1e-6);
        assertEquals(Math.sqrt(0.4 * 0.4 + 0.8 * 0.8), DistanceMetric.EUCLIDEAN.distance(a, b), 1e-6);
        assertEquals(-0.6, DistanceMetric.DOTPRODUCT.distance(a, b), 1e-6);
        assertEquals(1 / (1 + Math.acos(0.6)), DistanceMetric.ANGULAR.closeness(Math.acos(0.6)), 1e-9);
        assertEquals(0.6, DistanceMetric.DOTPRODUCT.closeness(-0.6), 1e-9);
        var index = new NearestNeighborIndex(3, DistanceMetric.ANGULAR, HNSW);
        index.set(1, b);
        var result = index.search(a, 1, 0, null, true, 0.05, 0.5);
        assertEquals(0, result.size(), "distanceThreshold drops hits farther than it");
    }

    /**
     * Binary codes (int8 cells of packed bits) near cluster codes, by hamming distance: exact search returns the true
     * nearest (distances as a bit-by-bit count finds them), and the graph finds nearly all of them.
     */
    @Test
    void hammingOverPackedBitsExactlyAndThroughTheGraph() {
        Random bits = new Random(11);
        int bytes = 16, documents = 3000;
        byte[][] centers = new byte[20][bytes];
        for (byte[] center : centers) bits.nextBytes(center);
        float[][] codes = new float[documents + 1][];
        NearestNeighborIndex index = new NearestNeighborIndex(bytes, DistanceMetric.HAMMING, HNSW);
        for (int lid = 1; lid <= documents; lid++) {
            codes[lid] = flipped(centers[bits.nextInt(centers.length)], bits, 20);
            index.set(lid, codes[lid]);
        }
        double recall = 0;
        for (int q = 0; q < 20; q++) {
            float[] query = flipped(centers[q], bits, 10);
            double[] truth = new double[documents];
            for (int lid = 1; lid <= documents; lid++) truth[lid - 1] = bitByBit(query, codes[lid]);
            Arrays.sort(truth);
            var exact = index.search(query, K, 0, null, false, 0.05, Double.POSITIVE_INFINITY);
            assertArrayEquals(Arrays.copyOf(truth, K), exact.distances(), "the exact search finds the true nearest");
            for (int i = 0; i < K; i++) assertEquals(bitByBit(query, codes[exact.lids()[i]]), exact.distances()[i]);
            var approximate = index.search(query, K, 40, null, true, 0.05, Double.POSITIVE_INFINITY);
            assertFalse(approximate.exact());
            double kth = truth[K - 1];
            recall += Arrays.stream(approximate.distances()).filter(d -> d <= kth).count() / (double) K;
        }
        assertTrue(recall / 20 >= 0.9, "recall@10 " + recall / 20);
    }

    /** Int8 cells of the code with the given number of random bits flipped (possibly some twice). */
    private static float[] flipped(byte[] code, Random random, int flips) {
        byte[] copy = code.clone();
        for (int i = 0; i < flips; i++) {
            int bit = random.nextInt(copy.length * 8);
            copy[bit / 8] ^= (byte) (1 << (bit % 8));
        }
        float[] cells = new float[copy.length];
        for (int i = 0; i < copy.length; i++) cells[i] = copy[i];
        return cells;
    }

    /** The bits that differ, counted one by one over each cell's two's-complement byte. */
    private static int bitByBit(float[] a, float[] b) {
        int differing = 0;
        for (int i = 0; i < a.length; i++)
            for (int bit = 0; bit < 8; bit++) if ((((byte) a[i] >> bit) & 1) != (((byte) b[i] >> bit) & 1)) differing++;
        return differing;
    }

    private static NearestNeighborIndex index(float[][] vectors, DistanceMetric metric) {
        NearestNeighborIndex index = new NearestNeighborIndex(DIMENSIONS, metric, HNSW);
        for (int lid = 1; lid <= DOCUMENTS; lid++) index.set(lid, vectors[lid]);
        return index;
    }

    /** Local id i (1..DOCUMENTS) near a random cluster center. */
    private static float[][] corpus() {
        float[][] vectors = new float[DOCUMENTS + 1][];
        for (int lid = 1; lid <= DOCUMENTS; lid++) vectors[lid] = near(centers[random.nextInt(CLUSTERS)]);
        return vectors;
    }

    private static float[] near(float[] center) {
        float[] noise = gaussian(0.35);
        float[] v = new float[DIMENSIONS];
        for (int i = 0; i < DIMENSIONS; i++) v[i] = center[i] + noise[i];
        return normalized(v);
    }

    private static float[] gaussian(double scale) {
        float[] v = new float[DIMENSIONS];
        for (int i = 0; i < DIMENSIONS; i++) v[i] = (float) (random.nextGaussian() * scale);
        return v;
    }

    private static float[] normalized(float[] v) {
        double norm = Math.sqrt(DistanceMetric.dot(v, v));
        for (int i = 0; i < v.length; i++) v[i] /= norm;
        return v;
    }

    private static int overlap(int[] a, int[] b) {
        return (int) Arrays.stream(a).filter(x -> Arrays.stream(b).anyMatch(y -> y == x)).count();
    }

}
