package ai.dwell.runtime.index;

import ai.dwell.runtime.format.CorruptStateException;
import ai.dwell.runtime.format.StateInput;
import ai.dwell.runtime.format.StateOutput;
import org.apache.lucene.util.hnsw.HnswGraph;
import org.apache.lucene.util.hnsw.NeighborArray;
import org.apache.lucene.util.hnsw.OnHeapHnswGraph;

import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.logging.Logger;

/**
 * The flushed form of an HNSW graph (Lucene's {@link OnHeapHnswGraph}) of nodes 0..n-1, and its restoration into an
 * empty graph without searching for neighbours again. Layout, levels from the top down:
 * <pre>
 * int32 levels, int32 entry node              (levels 0 for an empty graph)
 * per level, top first:
 *   int32 n, int32[n] nodes (ascending), int32[n] neighbour counts, int32[n] sorted-prefix lengths,
 *   int32 total, int32[total] neighbour ids, float32[total] neighbour scores
 * </pre>
 * A neighbour list is kept as Lucene keeps it: a prefix sorted by score, closest first, whose diversity was
 * checked, and a tail added since; restoring the prefix length too makes later inserts prune neighbours exactly
 * as they would have without the round trip. Lucene does not expose that length, so it is read reflectively; where
 * that is refused, 0 is written (every neighbour counts as unchecked: a valid graph whose later pruning may differ).
 *
 * Reading checks the structure before the graph is touched: nodes in range, on every level below their top one,
 * each level-0 node present, neighbours on the same level and not the node itself, counts within Lucene's limits,
 * sorted prefixes sorted, the entry node on the top level. Anything else is a {@link CorruptStateException}.
 */
final class HnswGraphState {

    private static final Logger log = Logger.getLogger(HnswGraphState.class.getName());
    private static final Field SORTED_NODE_SIZE = sortedNodeSizeField();

    private HnswGraphState() {}

    /** Writes the graph, which must hold exactly the nodes 0..nodes-1. */
    static void write(OnHeapHnswGraph graph, int nodes, StateOutput out) throws IOException {
        if (graph.size() != nodes)
            throw new IllegalStateException("The graph holds " + graph.size() + " nodes, the index " + nodes + " vectors");
        int levels = nodes == 0 ? 0 : graph.numLevels();
        out.writeInt(levels);
        out.writeInt(nodes == 0 ? -1 : graph.entryNode());
        for (int level = levels - 1; level >= 0; level--) {
            int[] onLevel = nodesOn(graph, level, nodes);
            int[] sizes = new int[onLevel.length];
            int[] sorted = new int[onLevel.length];
            long total = 0;
            for (int i = 0; i < onLevel.length; i++) {
                NeighborArray neighbors = graph.getNeighbors(level, onLevel[i]);
                sizes[i] = neighbors.size();
                sorted[i] = sortedPrefix(neighbors);
                total += sizes[i];
            }
            if (total > Integer.MAX_VALUE) throw new IllegalStateException("Level " + level + " has " + total + " links");
            out.writeInt(onLevel.length);
            out.writeInts(onLevel, 0, onLevel.length);
            out.writeInts(sizes, 0, sizes.length);
            out.writeInts(sorted, 0, sorted.length);
            out.writeInt((int) total);
            for (int node : onLevel)
                out.writeInts(graph.getNeighbors(level, node).nodes(), 0, graph.getNeighbors(level, node).size());
            float[] scores = new float[0];
            for (int node : onLevel) {
                NeighborArray neighbors = graph.getNeighbors(level, node);
                if (scores.length < neighbors.size()) scores = new float[neighbors.size()];
                for (int j = 0; j < neighbors.size(); j++) scores[j] = neighbors.getScores(j);
                out.writeFloats(scores, 0, neighbors.size());
            }
        }
    }

    /**
     * Reads a graph written by {@link #write} of the given number of nodes into an empty graph of a builder made
     * with maxLinksPerNode M (Lucene allows 2M links on level 0, M above).
     */
    static void read(StateInput in, int nodes, int maxLinksPerNode, OnHeapHnswGraph graph) throws IOException {
        if (graph.size() != 0) throw new IllegalArgumentException("The graph to read into must be empty");
        int levels = in.readInt();
        int entry = in.readInt();
        if (nodes == 0) {
            if (levels != 0) throw new CorruptStateException("an empty graph with " + levels + " levels");
            return;
        }
        if (levels < 1 || levels > 64) throw new CorruptStateException("a graph of " + levels + " levels");
        if (entry < 0 || entry >= nodes) throw new CorruptStateException("entry node " + entry + " of a graph of " + nodes + " nodes");
        int[] lowest = new int[nodes]; // the lowest level a node was added on so far, -1: not yet
        Arrays.fill(lowest, -1);
        for (int level = levels - 1; level >= 0; level--) {
            int n = in.readLength(12);
            if (level == 0 && n != nodes) throw new CorruptStateException("level 0 has " + n + " nodes of " + nodes);
            int[] onLevel = new int[n];
            int[] sizes = new int[n];
            int[] sorted = new int[n];
            in.readInts(onLevel, 0, n);
            in.readInts(sizes, 0, n);
            in.readInts(sorted, 0, n);
            int maxSize = level == 0 ? 2 * maxLinksPerNode : maxLinksPerNode;
            long expectedTotal = 0;
            for (int i = 0; i < n; i++) {
                int node = onLevel[i];
                if (node < 0 || node >= nodes) throw new CorruptStateException("node " + node + " on level " + level + " of a graph of " + nodes + " nodes");
                if (i > 0 && node <= onLevel[i - 1]) throw new CorruptStateException("nodes of level " + level + " are not ascending");
                if (lowest[node] != -1 && lowest[node] != level + 1)
                    throw new CorruptStateException("node " + node + " is missing on a level between its top and " + level);
                if (sizes[i] < 0 || sizes[i] > maxSize) throw new CorruptStateException("node " + node + " has " + sizes[i] + " links on level " + level);
                if (sorted[i] < 0 || sorted[i] > sizes[i]) throw new CorruptStateException("node " + node + " has a sorted prefix of " + sorted[i] + " of " + sizes[i]);
                expectedTotal += sizes[i];
            }
            if (level == levels - 1 && Arrays.binarySearch(onLevel, entry) < 0)
                throw new CorruptStateException("entry node " + entry + " is not on the top level");
            int total = in.readLength(8);
            if (total != expectedTotal) throw new CorruptStateException("level " + level + " has " + total + " links, its nodes " + expectedTotal);
            int[] neighbors = new int[total];
            float[] scores = new float[total];
            in.readInts(neighbors, 0, total);
            in.readFloats(scores, 0, total);
            for (int node : onLevel) lowest[node] = level;
            for (int i = 0, at = 0; i < n; at += sizes[i++]) {
                for (int j = at; j < at + sizes[i]; j++) {
                    int neighbor = neighbors[j];
                    if (neighbor < 0 || neighbor >= nodes || lowest[neighbor] != level || neighbor == onLevel[i])
                        throw new CorruptStateException("node " + onLevel[i] + " links to " + neighbor + ", not a node of level " + level);
                    if (j > at && j < at + sorted[i] && ! (scores[j - 1] >= scores[j]))
                        throw new CorruptStateException("the sorted links of node " + onLevel[i] + " on level " + level + " are not sorted");
                }
            }
            for (int i = 0, at = 0; i < n; at += sizes[i++]) {
                graph.addNode(level, onLevel[i]);
                NeighborArray array = graph.getNeighbors(level, onLevel[i]);
                for (int j = at; j < at + sorted[i]; j++) array.addInOrder(neighbors[j], scores[j]);
                for (int j = at + sorted[i]; j < at + sizes[i]; j++) array.addOutOfOrder(neighbors[j], scores[j]);
            }
        }
        graph.trySetNewEntryNode(entry, levels - 1);
    }

    /** The ascending nodes on a level. */
    private static int[] nodesOn(OnHeapHnswGraph graph, int level, int nodes) throws IOException {
        HnswGraph.NodesIterator iterator = graph.getNodesOnLevel(level);
        int[] onLevel = new int[iterator.size()];
        for (int i = 0; iterator.hasNext(); i++) onLevel[i] = iterator.nextInt();
        Arrays.sort(onLevel);
        return onLevel;
    }

    private static int sortedPrefix(NeighborArray neighbors) {
        if (SORTED_NODE_SIZE == null) return 0;
        try {
            return Math.min(SORTED_NODE_SIZE.getInt(neighbors), neighbors.size());
        }
        catch (IllegalAccessException e) {
            return 0;
        }
    }

    private static Field sortedNodeSizeField() {
        try {
            Field field = NeighborArray.class.getDeclaredField("sortedNodeSize");
            field.setAccessible(true);
            return field;
        }
        catch (ReflectiveOperationException | RuntimeException e) {
            log.warning("Cannot read the sorted prefix of Lucene's neighbour arrays (" + e + "): flushed HNSW graphs will " +
                        "mark every link unchecked, and inserts after a load may prune links differently");
            return null;
        }
    }

}
