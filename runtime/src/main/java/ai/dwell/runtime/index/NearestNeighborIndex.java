package ai.dwell.runtime.index;

import ai.dwell.runtime.format.CorruptStateException;
import ai.dwell.runtime.format.StateInput;
import ai.dwell.runtime.format.StateOutput;
import org.apache.lucene.search.KnnCollector;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.hnsw.HnswGraphBuilder;
import org.apache.lucene.util.hnsw.HnswGraphSearcher;
import org.apache.lucene.util.hnsw.OnHeapHnswGraph;
import org.apache.lucene.util.hnsw.RandomVectorScorer;
import org.apache.lucene.util.hnsw.RandomVectorScorerSupplier;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The vectors of one dense tensor attribute (tensor&lt;float&gt;(x[n])) by local id, for nearestNeighbor:
 * an HNSW graph (Apache Lucene's, when the schema declares {@code index { hnsw }}) and exact search.
 *
 * Filters are applied during the graph search, as proton does: the graph is walked through all
 * vectors but only accepted ones (alive, and in the filter) are collected, so a filtered query still
 * finds its targetHits. When the filter passes fewer than approximateThreshold of the documents, or
 * the graph search visits more vectors than the filter passes, the search is exact over the filter
 * (Vespa's approximate-threshold; Lucene's visit limit).
 *
 * Graph nodes are ordinals, one per stored vector; a replaced or removed vector leaves a dead ordinal
 * that searches skip, and the graph is rebuilt without them once they outnumber the live ones. Not
 * thread safe for writes: the owning index serializes writes against searches; searches may run
 * concurrently (each walks the graph through its own cursor).
 *
 * The index flushes to and loads from a {@link StateOutput}/{@link StateInput} ({@link #writeTo}, {@link #readFrom}):
 * vectors, maps and the graph as they are, so that loading costs a bulk read, not a graph insertion per vector, and
 * searches and later inserts behave exactly as they would have without the round trip.
 */
public final class NearestNeighborIndex implements VectorSearch {

    /** The HNSW settings of the schema: max-links-per-node and neighbors-to-explore-at-insert. */
    public record HnswSettings(int maxLinksPerNode, int neighborsToExploreAtInsert) {}

    /** The result of a search: local ids with their distances, closest first. */
    public record Neighbors(int[] lids, double[] distances, boolean exact) {
        public int size() { return lids.length; }
    }

    private static final long SEED = 42;
    /** The increment of {@link java.util.SplittableRandom}'s state per value drawn, for a seed of its own constructor. */
    private static final long SPLITTABLE_RANDOM_GAMMA = 0x9e3779b97f4a7c15L;
    /** The version of what {@link #writeTo} writes. */
    private static final int FORMAT_VERSION = 1;

    private final int dimensions;
    private final DistanceMetric metric;
    private final HnswSettings hnsw; // null: exact search only

    private float[][] vectors = new float[0][];
    private int[] lidOfOrd = new int[0];
    private int[] ordOfLid = new int[0];
    private final BitSet dead = new BitSet();
    private int ords = 0;
    private int alive = 0;
    private HnswGraphBuilder builder;

    public NearestNeighborIndex(int dimensions, DistanceMetric metric, HnswSettings hnsw) {
        this.dimensions = dimensions;
        this.metric = metric;
        this.hnsw = hnsw;
        this.builder = hnsw == null ? null : newBuilder();
    }

    @Override public int dimensions() { return dimensions; }
    @Override public DistanceMetric metric() { return metric; }
    public boolean hasGraph() { return hnsw != null; }
    /** The HNSW settings, or null for exact search only. */
    public HnswSettings hnsw() { return hnsw; }
    /** The number of documents with a vector. */
    public int size() { return alive; }

    /** Approximate heap bytes of the vectors and the graph. */
    public long memoryBytes() {
        long vectorBytes = (long) ords * (16 + 4L * dimensions) + 8L * vectors.length + 4L * (lidOfOrd.length + ordOfLid.length);
        return vectorBytes + (builder == null ? 0 : builder.getGraph().ramBytesUsed());
    }

    /** Sets the vector of a local id; an unchanged vector changes nothing. */
    public void set(int lid, float[] vector) {
        if (vector.length != dimensions)
            throw new IllegalArgumentException("Expected a vector of " + dimensions + " dimensions, got " + vector.length);
        int old = ord(lid);
        if (old >= 0 && Arrays.equals(vectors[old], vector)) return;
        if (old >= 0) kill(old);
        int ord = ords++;
        if (ord >= vectors.length) {
            vectors = Arrays.copyOf(vectors, Attribute.grow(vectors.length, ord));
            lidOfOrd = Arrays.copyOf(lidOfOrd, vectors.length);
        }
        vectors[ord] = vector.clone();
        lidOfOrd[ord] = lid;
        if (lid >= ordOfLid.length) {
            int from = ordOfLid.length;
            ordOfLid = Arrays.copyOf(ordOfLid, Attribute.grow(ordOfLid.length, lid));
            Arrays.fill(ordOfLid, from, ordOfLid.length, -1);
        }
        ordOfLid[lid] = ord;
        alive++;
        if (builder != null) addToGraph(ord);
        if (dead.cardinality() > Math.max(1024, alive)) rebuild();
    }

    /** Removes the vector of a local id, if it has one. */
    public void clear(int lid) {
        int ord = ord(lid);
        if (ord < 0) return;
        kill(ord);
        ordOfLid[lid] = -1;
    }

    /** The vector of a local id (not to be modified), or null. */
    public float[] vector(int lid) {
        int ord = ord(lid);
        return ord < 0 ? null : vectors[ord];
    }

    @Override
    public double distance(float[] query, int lid) {
        float[] vector = vector(lid);
        return vector == null ? Double.MAX_VALUE : metric.distance(query, vector);
    }

    /** The targetHits vectors closest to the query among the local ids in filter (all when null); see {@link VectorSearch#search}. */
    @Override
    public Neighbors search(float[] query, int targetHits, int exploreAdditionalHits, BitSet filter,
                            boolean approximate, double approximateThreshold, double distanceThreshold) {
        if (query.length != dimensions)
            throw new IllegalArgumentException("The query vector has " + query.length + " dimensions, the attribute " + dimensions);
        if (targetHits <= 0 || alive == 0) return new Neighbors(new int[0], new double[0], true);
        int passing = filter == null ? alive : filter.cardinality();
        boolean exact = hnsw == null || ! approximate || (filter != null && passing < approximateThreshold * alive);
        int[] found = null;
        if ( ! exact) {
            found = graphSearch(query, targetHits, exploreAdditionalHits, filter, passing);
            exact = found == null;
        }
        if (exact) found = exactSearch(query, targetHits, filter);
        return withDistances(query, found, targetHits, distanceThreshold, exact);
    }

    /** The ordinals of the closest accepted vectors by walking the graph, or null if exact search is cheaper. */
    private int[] graphSearch(float[] query, int targetHits, int exploreAdditionalHits, BitSet filter, int passing) {
        KnnCollector collector = new TopKnnCollector(targetHits + Math.max(0, exploreAdditionalHits),
                                                     filter == null ? Integer.MAX_VALUE : passing);
        Bits accepted = filter == null && dead.isEmpty() ? null : new Accepted(filter);
        try {
            HnswGraphSearcher.search(new QueryScorer(query), collector, new GraphCursor(builder.getGraph()), accepted);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (collector.earlyTerminated()) return null;
        ScoreDoc[] docs = collector.topDocs().scoreDocs;
        int[] found = new int[docs.length];
        for (int i = 0; i < docs.length; i++) found[i] = docs[i].doc;
        return found;
    }

    /** The ordinals of the closest vectors among the filter, by comparing the query with each. */
    private int[] exactSearch(float[] query, int k, BitSet filter) {
        TopOrdinals top = new TopOrdinals(k);
        if (filter == null) {
            for (int ord = 0; ord < ords; ord++)
                if ( ! dead.get(ord)) top.offer(ord, metric.similarity(query, vectors[ord]));
        }
        else {
            for (int lid = filter.nextSetBit(0); lid >= 0; lid = filter.nextSetBit(lid + 1)) {
                int ord = ord(lid);
                if (ord >= 0) top.offer(ord, metric.similarity(query, vectors[ord]));
            }
        }
        return top.ordinals();
    }

    private Neighbors withDistances(float[] query, int[] found, int targetHits, double distanceThreshold, boolean exact) {
        int n = found.length;
        int[] lids = new int[n];
        double[] distances = new double[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            lids[i] = lidOfOrd[found[i]];
            distances[i] = metric.distance(query, vectors[found[i]]);
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(distances[a], distances[b]));
        int kept = 0;
        int[] outLids = new int[Math.min(n, targetHits)];
        double[] outDistances = new double[outLids.length];
        for (int i = 0; i < n && kept < outLids.length; i++) {
            if (distances[order[i]] > distanceThreshold) break;
            outLids[kept] = lids[order[i]];
            outDistances[kept++] = distances[order[i]];
        }
        return new Neighbors(Arrays.copyOf(outLids, kept), Arrays.copyOf(outDistances, kept), exact);
    }

    private int ord(int lid) { return lid < ordOfLid.length ? ordOfLid[lid] : -1; }

    private void kill(int ord) {
        dead.set(ord);
        alive--;
    }

    private void addToGraph(int ord) {
        try {
            builder.addGraphNode(ord);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new graph of the live vectors only, renumbered. */
    private void rebuild() {
        float[][] oldVectors = vectors;
        int[] oldLids = lidOfOrd;
        int oldOrds = ords;
        BitSet oldDead = (BitSet) dead.clone();
        vectors = new float[Math.max(16, alive)][];
        lidOfOrd = new int[vectors.length];
        Arrays.fill(ordOfLid, -1);
        dead.clear();
        ords = 0;
        alive = 0;
        builder = hnsw == null ? null : newBuilder();
        for (int ord = 0; ord < oldOrds; ord++)
            if ( ! oldDead.get(ord)) set(oldLids[ord], oldVectors[ord]);
    }

    private HnswGraphBuilder newBuilder() {
        try {
            return HnswGraphBuilder.create(new Vectors(), hnsw.maxLinksPerNode(), hnsw.neighborsToExploreAtInsert(), SEED);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Writes this index: settings, counts, the vectors of every ordinal (dead ones too: they are graph nodes) in bulk,
     * the local id of each ordinal, the dead ordinals and the graph ({@link HnswGraphState}). Reads only: it must
     * not run concurrently with {@link #set} or {@link #clear}, but may run concurrently with searches.
     * <pre>
     * int32 format version, int32 dimensions, string metric, bool graph [int32 M, int32 neighbors-to-explore]
     * int32 ordinals, int32 alive, int32 local id capacity
     * float32[ordinals × dimensions] vectors, int32[ordinals] local id of each ordinal
     * int32 words, int64[words] dead ordinals (a bit set)
     * graph (when there is one)
     * </pre>
     */
    public void writeTo(StateOutput out) throws IOException {
        out.writeInt(FORMAT_VERSION);
        out.writeInt(dimensions);
        out.writeString(metric.name());
        out.writeBoolean(hnsw != null);
        if (hnsw != null) {
            out.writeInt(hnsw.maxLinksPerNode());
            out.writeInt(hnsw.neighborsToExploreAtInsert());
        }
        out.writeInt(ords);
        out.writeInt(alive);
        out.writeInt(ordOfLid.length);
        for (int ord = 0; ord < ords; ord++) out.writeFloats(vectors[ord], 0, dimensions);
        out.writeInts(lidOfOrd, 0, ords);
        long[] deadWords = dead.toLongArray();
        out.writeInt(deadWords.length);
        out.writeLongs(deadWords, 0, deadWords.length);
        if (hnsw != null) HnswGraphState.write(builder.getGraph(), ords, out);
    }

    /**
     * Reads an index written by {@link #writeTo}, which must have been written with these dimensions, metric and
     * HNSW settings; its graph is restored as it was, without inserting a vector. Throws {@link CorruptStateException}
     * if the state is of another index or does not hold together.
     */
    public static NearestNeighborIndex readFrom(StateInput in, int dimensions, DistanceMetric metric, HnswSettings hnsw) throws IOException {
        int version = in.readInt();
        if (version != FORMAT_VERSION) throw new CorruptStateException("nearest neighbor index format " + version + ", expected " + FORMAT_VERSION);
        int writtenDimensions = in.readInt();
        String writtenMetric = in.readString();
        HnswSettings writtenHnsw = in.readBoolean() ? new HnswSettings(in.readInt(), in.readInt()) : null;
        if (writtenDimensions != dimensions || ! metric.name().equals(writtenMetric) || ! java.util.Objects.equals(writtenHnsw, hnsw))
            throw new CorruptStateException("the nearest neighbor index was written with " + writtenDimensions + " dimensions, metric " +
                                            writtenMetric + " and hnsw " + writtenHnsw + ", not " + dimensions + ", " + metric + " and " + hnsw);
        NearestNeighborIndex index = new NearestNeighborIndex(dimensions, metric, hnsw);
        int ords = in.readLength(4L * dimensions + 4);
        int alive = in.readInt();
        int lidCapacity = in.readInt();
        if (lidCapacity < 0 || lidCapacity > (1 << 30)) throw new CorruptStateException("local id capacity " + lidCapacity);
        float[][] vectors = new float[Math.max(16, ords)][];
        for (int ord = 0; ord < ords; ord++) {
            vectors[ord] = new float[dimensions];
            in.readFloats(vectors[ord], 0, dimensions);
        }
        int[] lidOfOrd = new int[vectors.length];
        in.readInts(lidOfOrd, 0, ords);
        long[] deadWords = new long[in.readLength(8)];
        in.readLongs(deadWords, 0, deadWords.length);
        BitSet dead = BitSet.valueOf(deadWords);
        if (dead.length() > ords) throw new CorruptStateException("dead ordinal " + (dead.length() - 1) + " of " + ords);
        if (alive != ords - dead.cardinality())
            throw new CorruptStateException(alive + " live vectors, but " + ords + " ordinals of which " + dead.cardinality() + " dead");
        int[] ordOfLid = new int[lidCapacity];
        Arrays.fill(ordOfLid, -1);
        for (int ord = 0; ord < ords; ord++) {
            if (dead.get(ord)) continue;
            int lid = lidOfOrd[ord];
            if (lid < 0 || lid >= lidCapacity) throw new CorruptStateException("local id " + lid + " of " + lidCapacity);
            if (ordOfLid[lid] >= 0) throw new CorruptStateException("local id " + lid + " has two live vectors");
            ordOfLid[lid] = ord;
        }
        index.vectors = vectors;
        index.lidOfOrd = lidOfOrd;
        index.ordOfLid = ordOfLid;
        index.dead.or(dead);
        index.ords = ords;
        index.alive = alive;
        if (hnsw != null) {
            // The builder goes on drawing node levels where the one that built the graph left off: one value per node
            index.builder = HnswGraphBuilder.create(index.new Vectors(), hnsw.maxLinksPerNode(), hnsw.neighborsToExploreAtInsert(),
                                                    seedAfter(ords));
            HnswGraphState.read(in, ords, hnsw.maxLinksPerNode(), index.builder.getGraph());
        }
        return index;
    }

    /**
     * The seed of a SplittableRandom that draws what one seeded with SEED draws after the given number of values:
     * its state is the seed plus one gamma per value. Lucene's builder draws one value (a level) per node it adds.
     */
    private static long seedAfter(long draws) {
        return SEED + draws * SPLITTABLE_RANDOM_GAMMA;
    }

    /** Scores ordinals against the vector of one ordinal, for inserting it into the graph. */
    private final class Vectors implements RandomVectorScorerSupplier {
        @Override public RandomVectorScorer scorer(int ord) { return new QueryScorer(vectors[ord]); }
        @Override public RandomVectorScorerSupplier copy() { return this; }
    }

    /** Scores ordinals against a query vector. */
    private final class QueryScorer implements RandomVectorScorer {
        private final float[] query;
        QueryScorer(float[] query) { this.query = query; }
        @Override public float score(int ord) { return metric.similarity(query, vectors[ord]); }
        @Override public int maxOrd() { return ords; }
    }

    /** The ordinals a search may return: alive, and (with a filter) of a local id in the filter. */
    private final class Accepted implements Bits {
        private final BitSet filter;
        Accepted(BitSet filter) { this.filter = filter; }
        @Override public boolean get(int ord) { return ! dead.get(ord) && (filter == null || filter.get(lidOfOrd[ord])); }
        @Override public int length() { return ords; }
    }

    /** The best k ordinals by similarity: a bounded min-heap. */
    private static final class TopOrdinals {
        private final int[] ords;
        private final float[] scores;
        private int size = 0;

        TopOrdinals(int k) {
            ords = new int[k];
            scores = new float[k];
        }

        void offer(int ord, float score) {
            if (size < ords.length) {
                ords[size] = ord;
                scores[size] = score;
                up(size++);
            }
            else if (score > scores[0]) {
                ords[0] = ord;
                scores[0] = score;
                down(0);
            }
        }

        int[] ordinals() { return Arrays.copyOf(ords, size); }

        private void up(int i) {
            while (i > 0) {
                int parent = (i - 1) / 2;
                if (scores[parent] <= scores[i]) return;
                swap(i, parent);
                i = parent;
            }
        }

        private void down(int i) {
            while (true) {
                int left = 2 * i + 1, right = left + 1, smallest = i;
                if (left < size && scores[left] < scores[smallest]) smallest = left;
                if (right < size && scores[right] < scores[smallest]) smallest = right;
                if (smallest == i) return;
                swap(i, smallest);
                i = smallest;
            }
        }

        private void swap(int a, int b) {
            int o = ords[a]; ords[a] = ords[b]; ords[b] = o;
            float s = scores[a]; scores[a] = scores[b]; scores[b] = s;
        }
    }

}
