package ai.dwell.runtime.index;

import ai.dwell.runtime.format.StateFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

/**
 * What flushing a {@link NearestNeighborIndex} saves at start: builds an HNSW index by insertion (what a start
 * without flushed state does), writes it to a state file, reads it back, and prints the time of each per vector,
 * the bytes per vector on disk, and whether searches agree. A measurement, not a test.
 *
 *   java --add-modules jdk.incubator.vector -cp ... ai.dwell.runtime.index.NearestNeighborStateBench [vectors [dimensions [dir [keep|load]]]]
 *
 * Vectors are unit vectors around 300 cluster centres, prenormalized-angular, M=16 and neighbors-to-explore 200 (as
 * comment.sd declares its embedding's index); 200 000 × 384 unless told. "keep" leaves the file in dir; "load" then
 * only loads it, in a JVM of its own, as a start does.
 */
public final class NearestNeighborStateBench {

    private static final int MAGIC = 0x444E4E42; // "DNNB", this bench's own

    public static void main(String[] args) throws IOException {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int dimensions = args.length > 1 ? Integer.parseInt(args[1]) : 384;
        Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("nn-state-bench");
        Path file = dir.resolve("vectors.state");
        var hnsw = new NearestNeighborIndex.HnswSettings(16, 200);
        String mode = args.length > 3 ? args[3] : "";
        if (mode.equals("load")) {
            long start = System.nanoTime();
            var loaded = StateFile.read(file, MAGIC, in -> NearestNeighborIndex.readFrom(in, dimensions, DistanceMetric.PRENORMALIZED_ANGULAR, hnsw)).state();
            report("load, fresh JVM", System.nanoTime() - start, loaded.size());
            return;
        }
        float[][] vectors = clustered(count, dimensions, 300, new Random(1));

        long start = System.nanoTime();
        NearestNeighborIndex built = new NearestNeighborIndex(dimensions, DistanceMetric.PRENORMALIZED_ANGULAR, hnsw);
        for (int i = 0; i < count; i++) built.set(i + 1, vectors[i]);
        long buildNanos = System.nanoTime() - start;
        report("build by insertion", buildNanos, count);

        start = System.nanoTime();
        long bytes = StateFile.write(file, MAGIC, 1, built::writeTo);
        report("write (fsynced)", System.nanoTime() - start, count);

        NearestNeighborIndex loaded = null;
        long bestLoad = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) { // the file is in the page cache after the write: a warm read
            loaded = null;
            System.gc();
            start = System.nanoTime();
            loaded = StateFile.read(file, MAGIC, in -> NearestNeighborIndex.readFrom(in, dimensions, DistanceMetric.PRENORMALIZED_ANGULAR, hnsw)).state();
            long nanos = System.nanoTime() - start;
            bestLoad = Math.min(bestLoad, nanos);
            report("load, round " + (round + 1), nanos, count);
        }
        System.out.printf("file: %d bytes, %.1f bytes per vector (%d of them the floats); load is %.0fx faster than insertion%n",
                          bytes, bytes / (double) count, 4 * dimensions, buildNanos / (double) bestLoad);

        Random random = new Random(2);
        int same = 0, queries = 100;
        for (int q = 0; q < queries; q++) {
            float[] query = vectors[random.nextInt(count)];
            var a = built.search(query, 10, 90, null, true, 0.05, Double.POSITIVE_INFINITY);
            var b = loaded.search(query, 10, 90, null, true, 0.05, Double.POSITIVE_INFINITY);
            if (Arrays.equals(a.lids(), b.lids()) && Arrays.equals(a.distances(), b.distances())) same++;
        }
        System.out.printf("identical approximate searches: %d of %d%n", same, queries);
        if ( ! mode.equals("keep")) Files.deleteIfExists(file);
    }

    private static void report(String what, long nanos, int count) {
        System.out.printf("%-20s %8.2f s  %8.2f µs per vector%n", what, nanos / 1e9, nanos / 1e3 / count);
    }

    private static float[][] clustered(int count, int dimensions, int clusters, Random random) {
        float[][] centers = new float[clusters][];
        for (int c = 0; c < clusters; c++) centers[c] = gaussian(dimensions, 1.0, random);
        float[][] vectors = new float[count][];
        for (int i = 0; i < count; i++) {
            float[] center = centers[random.nextInt(clusters)];
            float[] v = gaussian(dimensions, 0.35, random);
            for (int d = 0; d < dimensions; d++) v[d] += center[d];
            double norm = Math.sqrt(DistanceMetric.dot(v, v));
            for (int d = 0; d < dimensions; d++) v[d] /= norm;
            vectors[i] = v;
        }
        return vectors;
    }

    private static float[] gaussian(int dimensions, double scale, Random random) {
        float[] v = new float[dimensions];
        for (int d = 0; d < dimensions; d++) v[d] = (float) (random.nextGaussian() * scale);
        return v;
    }

}
