package ai.dwell.runtime.index;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The content engine's nearestNeighbor measured directly, for bench/ann_bench.py: builds a
 * {@link NearestNeighborIndex} (HNSW, as comment.sd declares it) from a vector file and runs the
 * queries at each exploreAdditionalHits, unfiltered and filtered, on one thread.
 *
 *   java ... AnnHarness DIR targetHits explore1,explore2,...
 *
 * DIR holds vectors.f32 and queries.f32 (int32 count, int32 dimensions, then float32 rows, little
 * endian) and filters.i32 (per query: int32 size, then that many 0-based vector indexes). Writes
 * DIR/dwell-&lt;kind&gt;-&lt;explore&gt;.i32 (per query targetHits 0-based indexes, -1 padded) and prints one
 * JSON line per run with the searching thread's CPU seconds and the index's memory.
 */
public final class AnnHarness {

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        int targetHits = Integer.parseInt(args[1]);
        float[][] vectors = read(dir.resolve("vectors.f32"));
        float[][] queries = read(dir.resolve("queries.f32"));
        BitSet[] filters = filters(dir.resolve("filters.i32"), queries.length);

        long buildStart = System.nanoTime();
        NearestNeighborIndex index = new NearestNeighborIndex(vectors[0].length, DistanceMetric.PRENORMALIZED_ANGULAR,
                                                              new NearestNeighborIndex.HnswSettings(16, 200));
        for (int i = 0; i < vectors.length; i++) index.set(i + 1, vectors[i]); // local ids from 1, as the engine
        double buildSeconds = (System.nanoTime() - buildStart) / 1e9;
        System.out.printf("{\"kind\":\"build\",\"seconds\":%.3f,\"vectors\":%d,\"bytes\":%d}%n", buildSeconds, vectors.length, index.memoryBytes());

        for (String kind : new String[] {"unfiltered", "filtered"}) {
            for (String explore : args[2].split(",")) {
                int e = Integer.parseInt(explore);
                long warmUntil = System.nanoTime() + 1_000_000_000L; // a second of the same queries first: JIT
                while (System.nanoTime() < warmUntil) run(index, queries, kind.equals("filtered") ? filters : null, targetHits, e, null);
                int[][] found = new int[queries.length][];
                double seconds = Double.MAX_VALUE;
                int exact = 0;
                var threads = java.lang.management.ManagementFactory.getThreadMXBean();
                for (int pass = 0; pass < 3; pass++) { // this thread's CPU time, the best of three passes: the machine is shared
                    long start = threads.getCurrentThreadCpuTime();
                    exact = run(index, queries, kind.equals("filtered") ? filters : null, targetHits, e, found);
                    seconds = Math.min(seconds, (threads.getCurrentThreadCpuTime() - start) / 1e9);
                }
                write(dir.resolve("dwell-" + kind + "-" + e + ".i32"), found, targetHits);
                System.out.printf("{\"kind\":\"%s\",\"explore\":%d,\"seconds\":%.6f,\"queries\":%d,\"exact\":%d}%n",
                                  kind, e, seconds, queries.length, exact);
            }
        }
    }

    private static int run(NearestNeighborIndex index, float[][] queries, BitSet[] filters, int k, int explore, int[][] found) {
        int exact = 0;
        for (int q = 0; q < queries.length; q++) {
            var neighbors = index.search(queries[q], k, explore, filters == null ? null : filters[q], true, 0.05, Double.POSITIVE_INFINITY);
            if (neighbors.exact()) exact++;
            if (found != null) found[q] = neighbors.lids();
        }
        return exact;
    }

    private static float[][] read(Path file) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int n = buffer.getInt(), d = buffer.getInt();
        float[][] rows = new float[n][d];
        for (float[] row : rows) for (int j = 0; j < d; j++) row[j] = buffer.getFloat();
        return rows;
    }

    private static BitSet[] filters(Path file, int count) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        BitSet[] filters = new BitSet[count];
        for (int q = 0; q < count; q++) {
            int size = buffer.getInt();
            filters[q] = new BitSet();
            for (int i = 0; i < size; i++) filters[q].set(buffer.getInt() + 1);
        }
        return filters;
    }

    private static void write(Path file, int[][] found, int k) throws IOException {
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(file))) {
            ByteBuffer row = ByteBuffer.allocate(4 * k).order(ByteOrder.LITTLE_ENDIAN);
            for (int[] lids : found) {
                row.clear();
                for (int i = 0; i < k; i++) row.putInt(i < lids.length ? lids[i] - 1 : -1);
                out.write(row.array());
            }
        }
    }

}
