package ai.dwell.runtime.index;

import ai.dwell.runtime.format.CorruptStateException;
import ai.dwell.runtime.format.StateFile;
import ai.dwell.runtime.format.StateOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link NearestNeighborIndex} written to a state file and read back: on clustered vectors (a few hundred
 * centres, as sentence embeddings cluster), with replaced and removed vectors (dead ordinals), for every metric,
 * searches give the same local ids and distances, exact and approximate, filtered and not; inserts after the load
 * build the same graph as inserts into an index that never went through a file (the written states are byte for
 * byte equal); and damaged or mismatched state is refused with {@link CorruptStateException}.
 */
public class NearestNeighborIndexStateTest {

    private static final int MAGIC = 0x444E4E31; // "DNN1", this test's own
    private static final int DIMENSIONS = 24, DOCUMENTS = 2500, CLUSTERS = 300, K = 10;
    private static final NearestNeighborIndex.HnswSettings HNSW = new NearestNeighborIndex.HnswSettings(8, 60);

    @TempDir Path dir;

    @Test
    void searchesAreIdenticalAfterARoundTripForEveryMetric() throws IOException {
        for (DistanceMetric metric : DistanceMetric.values()) {
            Corpus corpus = new Corpus(metric.ordinal() + 1);
            NearestNeighborIndex written = corpus.populated(metric, HNSW);
            NearestNeighborIndex read = roundTrip(written, metric, HNSW);
            assertSameIndex(corpus, written, read, metric.name());
        }
    }

    @Test
    void anExactOnlyIndexRoundTripsWithoutAGraph() throws IOException {
        Corpus corpus = new Corpus(11);
        NearestNeighborIndex written = corpus.populated(DistanceMetric.EUCLIDEAN, null);
        NearestNeighborIndex read = roundTrip(written, DistanceMetric.EUCLIDEAN, null);
        assertFalse(read.hasGraph());
        assertSameIndex(corpus, written, read, "exact only");
        assertArrayEquals(bytes(written), bytes(read));
    }

    @Test
    void emptyIndexesRoundTrip() throws IOException {
        for (var hnsw : new NearestNeighborIndex.HnswSettings[] { HNSW, null }) {
            NearestNeighborIndex read = roundTrip(new NearestNeighborIndex(DIMENSIONS, DistanceMetric.ANGULAR, hnsw), DistanceMetric.ANGULAR, hnsw);
            assertEquals(0, read.size());
            read.set(3, new Corpus(5).near(0));
            assertEquals(3, read.search(new Corpus(5).near(0), 1, 10, null, true, 0.05, Double.POSITIVE_INFINITY).lids()[0]);
        }
    }

    @Test
    void insertsAfterLoadingBuildTheGraphAnUnwrittenIndexBuilds() throws IOException {
        for (DistanceMetric metric : new DistanceMetric[] { DistanceMetric.PRENORMALIZED_ANGULAR, DistanceMetric.EUCLIDEAN }) {
            Corpus corpus = new Corpus(20 + metric.ordinal());
            NearestNeighborIndex unwritten = corpus.populated(metric, HNSW);
            NearestNeighborIndex loaded = roundTrip(unwritten, metric, HNSW);
            List<Consumer<NearestNeighborIndex>> more = corpus.moreWrites(); // new, replaced, removed and re-added vectors
            for (var write : more) {
                write.accept(unwritten);
                write.accept(loaded);
            }
            assertArrayEquals(bytes(unwritten), bytes(loaded), metric + ": the same vectors, maps and graph, link for link");
            assertSameIndex(corpus, unwritten, loaded, metric + " after more writes");
        }
    }

    @Test
    void aGraphRebuiltAfterLoadingIsTheGraphRebuiltWithoutIt() throws IOException {
        Corpus corpus = new Corpus(31);
        NearestNeighborIndex unwritten = corpus.populated(DistanceMetric.ANGULAR, HNSW);
        NearestNeighborIndex loaded = roundTrip(unwritten, DistanceMetric.ANGULAR, HNSW);
        for (int round = 0; round < 2; round++) // dead ordinals come to outnumber live ones: both rebuild their graph
            for (int lid = 1; lid <= DOCUMENTS; lid++) {
                float[] vector = corpus.near(lid + round);
                unwritten.set(lid, vector);
                loaded.set(lid, vector);
            }
        assertArrayEquals(bytes(unwritten), bytes(loaded));
        assertSameIndex(corpus, unwritten, loaded, "after a rebuild");
    }

    @Test
    void damagedFilesAreRefused() throws IOException {
        Corpus corpus = new Corpus(41);
        NearestNeighborIndex index = corpus.populated(DistanceMetric.DOTPRODUCT, HNSW);
        Path file = dir.resolve("vectors.state");
        StateFile.write(file, MAGIC, 7, index::writeTo);
        byte[] intact = Files.readAllBytes(file);
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) { // a flipped byte anywhere: header, vectors, maps, graph, trailer
            byte[] damaged = intact.clone();
            damaged[random.nextInt(damaged.length)] ^= (byte) (1 << random.nextInt(8));
            Files.write(file, damaged);
            assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.DOTPRODUCT, HNSW));
        }
        for (int length : new int[] { 0, 11, intact.length / 2, intact.length - 1 }) { // cut short
            Files.write(file, java.util.Arrays.copyOf(intact, length));
            assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.DOTPRODUCT, HNSW));
        }
        Files.write(file, intact);
        assertEquals(index.size(), read(file, DistanceMetric.DOTPRODUCT, HNSW).size());
    }

    @Test
    void stateOfAnotherIndexIsRefused() throws IOException {
        Corpus corpus = new Corpus(51);
        NearestNeighborIndex index = corpus.populated(DistanceMetric.EUCLIDEAN, HNSW);
        Path file = dir.resolve("vectors.state");
        StateFile.write(file, MAGIC, 7, index::writeTo);
        assertThrows(CorruptStateException.class, () -> StateFile.read(file, MAGIC, in -> NearestNeighborIndex.readFrom(in, DIMENSIONS + 1, DistanceMetric.EUCLIDEAN, HNSW)));
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.ANGULAR, HNSW));
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.EUCLIDEAN, new NearestNeighborIndex.HnswSettings(16, 60)));
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.EUCLIDEAN, new NearestNeighborIndex.HnswSettings(8, 200)));
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.EUCLIDEAN, null));
        StateFile.write(file, MAGIC, 7, new NearestNeighborIndex(DIMENSIONS, DistanceMetric.EUCLIDEAN, null)::writeTo);
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.EUCLIDEAN, HNSW));
    }

    /** State with a valid checksum that does not hold together: written by a bug, not damaged on disk. */
    @Test
    void malformedStateIsRefused() throws IOException {
        Corpus corpus = new Corpus(61);
        NearestNeighborIndex index = corpus.populated(DistanceMetric.PRENORMALIZED_ANGULAR, HNSW);
        byte[] state = bytes(index);
        Layout layout = new Layout(state);
        assertMalformed(state, layout.entryNode, layout.ordinals);                      // entry node out of range
        assertMalformed(state, layout.entryNode, -1);
        assertMalformed(state, layout.levelZeroNeighbors, layout.ordinals);             // a link out of range
        assertMalformed(state, layout.levelZeroNeighbors, -5);
        assertMalformed(state, layout.levelZeroNeighbors, layout.intAt(layout.levelZeroNodes)); // a link to itself (node 0)
        assertMalformed(state, layout.levelZeroSizes, 2 * HNSW.maxLinksPerNode() + 1);  // more links than Lucene allows
        assertMalformed(state, layout.levelZeroSorted, layout.intAt(layout.levelZeroSizes) + 1);
        assertMalformed(state, layout.levelZeroNodes + 4, 0);                           // nodes not ascending (a node missing)
        assertMalformed(state, layout.levels, 65);
        if (layout.topLevelNeighbors >= 0)                                               // a link to a node not on the level
            assertMalformed(state, layout.topLevelNeighbors, layout.firstNodeNotOnTopLevel());
        assertMalformed(state, layout.alive, layout.intAt(layout.alive) + 1);           // counts that disagree
        assertMalformed(state, layout.ordinalsAt, Integer.MAX_VALUE);                  // more vectors than the state holds
        assertMalformed(state, layout.lidOfOrd + 4 * 2, layout.intAt(layout.lidOfOrd + 4)); // two live vectors of local id 2
        assertMalformed(state, layout.lidOfOrd + 4 * 2, layout.intAt(layout.lidCapacity)); // a local id past the capacity
        assertMalformed(state, layout.lidCapacity, -1);
        assertEquals(index.size(), read(write(state), DistanceMetric.PRENORMALIZED_ANGULAR, HNSW).size(), "the unmodified state reads");
    }

    private void assertMalformed(byte[] state, int offset, int value) throws IOException {
        byte[] modified = state.clone();
        ByteBuffer.wrap(modified).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        Path file = write(modified);
        assertThrows(CorruptStateException.class, () -> read(file, DistanceMetric.PRENORMALIZED_ANGULAR, HNSW),
                     "the value " + value + " at " + offset);
    }

    private Path write(byte[] state) throws IOException {
        Path file = dir.resolve("malformed.state");
        StateFile.write(file, MAGIC, 1, out -> out.writeRaw(state, 0, state.length));
        return file;
    }

    private void assertSameIndex(Corpus corpus, NearestNeighborIndex expected, NearestNeighborIndex actual, String what) {
        assertEquals(expected.size(), actual.size(), what);
        assertEquals(expected.hasGraph(), actual.hasGraph(), what);
        for (int lid = 0; lid <= DOCUMENTS + 100; lid++)
            assertArrayEquals(expected.vector(lid), actual.vector(lid), what + ": the vector of " + lid);
        BitSet quarter = new BitSet();
        for (int lid = 1; lid <= DOCUMENTS + 100; lid += 4) quarter.set(lid);
        BitSet few = new BitSet();
        for (int lid = 3; lid <= DOCUMENTS + 100; lid += 97) few.set(lid);
        int approximateSearches = 0;
        for (int q = 0; q < 30; q++) {
            float[] query = corpus.near(q * 7);
            for (BitSet filter : new BitSet[] { null, quarter, few })
                for (boolean approximate : new boolean[] { true, false }) {
                    var before = expected.search(query, K, 30, filter, approximate, 0.05, Double.POSITIVE_INFINITY);
                    var after = actual.search(query, K, 30, filter, approximate, 0.05, Double.POSITIVE_INFINITY);
                    String search = what + ": query " + q + (filter == null ? "" : " filtered " + filter.cardinality()) + (approximate ? " approximate" : " exact");
                    assertArrayEquals(before.lids(), after.lids(), search);
                    assertArrayEquals(before.distances(), after.distances(), search); // bit for bit
                    assertEquals(before.exact(), after.exact(), search);
                    if ( ! before.exact()) approximateSearches++;
                }
        }
        if (expected.hasGraph() && expected.size() > 100) assertTrue(approximateSearches >= 30, what + ": the graph was searched");
    }

    private NearestNeighborIndex roundTrip(NearestNeighborIndex index, DistanceMetric metric, NearestNeighborIndex.HnswSettings hnsw) throws IOException {
        Path file = dir.resolve("vectors.state");
        StateFile.write(file, MAGIC, 42, index::writeTo);
        return read(file, metric, hnsw);
    }

    private static NearestNeighborIndex read(Path file, DistanceMetric metric, NearestNeighborIndex.HnswSettings hnsw) throws IOException {
        return StateFile.read(file, MAGIC, in -> NearestNeighborIndex.readFrom(in, DIMENSIONS, metric, hnsw)).state();
    }

    /** What {@link NearestNeighborIndex#writeTo} writes, in memory. */
    static byte[] bytes(NearestNeighborIndex index) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StateOutput out = new StateOutput(Channels.newChannel(bytes));
        index.writeTo(out);
        out.flush();
        return bytes.toByteArray();
    }

    /** Where the values this test modifies are in what {@link NearestNeighborIndex#writeTo} wrote (with a graph). */
    private static final class Layout {

        final ByteBuffer buffer;
        final int ordinalsAt, ordinals, alive, lidCapacity, lidOfOrd, levels, entryNode, levelZeroNodes, levelZeroSizes, levelZeroSorted, levelZeroNeighbors;
        int topLevelNeighbors = -1;
        int[] topLevelNodes;

        Layout(byte[] state) {
            buffer = ByteBuffer.wrap(state).order(ByteOrder.LITTLE_ENDIAN);
            int at = 4 + 4;                                         // version, dimensions
            at += 4 + intAt(at);                                    // metric
            at += 1 + 8;                                            // graph, M, neighbors to explore
            ordinalsAt = at;
            ordinals = intAt(at);
            alive = at + 4;
            lidCapacity = at + 8;
            at += 12;                                               // ordinals, alive, local id capacity
            lidOfOrd = at + ordinals * DIMENSIONS * 4;
            at += ordinals * DIMENSIONS * 4 + ordinals * 4;         // vectors, local ids
            at += 4 + 8 * intAt(at);                                // dead ordinals
            levels = at;
            entryNode = at + 4;
            at += 8;
            int nodesAt = 0, sizesAt = 0, sortedAt = 0, neighborsAt = 0;
            for (int level = intAt(levels) - 1; level >= 0; level--) {
                int n = intAt(at);
                nodesAt = at + 4;
                sizesAt = nodesAt + 4 * n;
                sortedAt = sizesAt + 4 * n;
                int total = intAt(sortedAt + 4 * n);
                neighborsAt = sortedAt + 4 * n + 4;
                if (level == intAt(levels) - 1 && level > 0 && total > 0) {
                    topLevelNeighbors = neighborsAt;
                    topLevelNodes = new int[n];
                    for (int i = 0; i < n; i++) topLevelNodes[i] = intAt(nodesAt + 4 * i);
                }
                at = neighborsAt + 8 * total;
            }
            if (at != state.length) throw new IllegalStateException("Misread the layout: " + at + " of " + state.length);
            levelZeroNodes = nodesAt;
            levelZeroSizes = sizesAt;
            levelZeroSorted = sortedAt;
            levelZeroNeighbors = neighborsAt;
        }

        int intAt(int offset) { return buffer.getInt(offset); }

        int firstNodeNotOnTopLevel() {
            for (int node = 0; ; node++)
                if (java.util.Arrays.binarySearch(topLevelNodes, node) < 0) return node;
        }

    }

    /** Clustered unit vectors and the writes that make an index of them. */
    private static final class Corpus {

        final Random random;
        final float[][] centers;

        Corpus(long seed) {
            random = new Random(seed);
            centers = new float[CLUSTERS][];
            for (int i = 0; i < CLUSTERS; i++) centers[i] = gaussian(1.0);
        }

        /** Local ids 1..DOCUMENTS; then every tenth replaced, every twentieth removed, some set again unchanged. */
        NearestNeighborIndex populated(DistanceMetric metric, NearestNeighborIndex.HnswSettings hnsw) {
            NearestNeighborIndex index = new NearestNeighborIndex(DIMENSIONS, metric, hnsw);
            for (int lid = 1; lid <= DOCUMENTS; lid++) index.set(lid, near(random.nextInt(CLUSTERS)));
            for (int lid = 1; lid <= DOCUMENTS; lid += 10) index.set(lid, near(random.nextInt(CLUSTERS)));
            for (int lid = 5; lid <= DOCUMENTS; lid += 20) index.clear(lid);
            for (int lid = 7; lid <= DOCUMENTS; lid += 50) index.set(lid, index.vector(lid).clone());
            return index;
        }

        /** New local ids, replaced and removed vectors, and removed ones set again. */
        List<Consumer<NearestNeighborIndex>> moreWrites() {
            List<Consumer<NearestNeighborIndex>> writes = new ArrayList<>();
            for (int lid = DOCUMENTS + 1; lid <= DOCUMENTS + 100; lid++) {
                int id = lid;
                float[] vector = near(random.nextInt(CLUSTERS));
                writes.add(index -> index.set(id, vector));
            }
            for (int lid = 3; lid <= DOCUMENTS; lid += 30) {
                int id = lid;
                float[] vector = near(random.nextInt(CLUSTERS));
                writes.add(index -> index.set(id, vector));
            }
            for (int lid = 9; lid <= DOCUMENTS; lid += 40) {
                int id = lid;
                writes.add(index -> index.clear(id));
            }
            for (int lid = 5; lid <= DOCUMENTS; lid += 60) {
                int id = lid;
                float[] vector = near(random.nextInt(CLUSTERS));
                writes.add(index -> index.set(id, vector));
            }
            return writes;
        }

        float[] near(int cluster) {
            float[] center = centers[Math.floorMod(cluster, CLUSTERS)];
            float[] noise = gaussian(0.3);
            float[] v = new float[DIMENSIONS];
            for (int i = 0; i < DIMENSIONS; i++) v[i] = center[i] + noise[i];
            double norm = Math.sqrt(DistanceMetric.dot(v, v));
            for (int i = 0; i < DIMENSIONS; i++) v[i] /= norm;
            return v;
        }

        private float[] gaussian(double scale) {
            float[] v = new float[DIMENSIONS];
            for (int i = 0; i < DIMENSIONS; i++) v[i] = (float) (random.nextGaussian() * scale);
            return v;
        }

    }

}
