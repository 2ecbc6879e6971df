package ai.dwell.runtime.index;

import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.hnsw.HnswGraph;
import org.apache.lucene.util.hnsw.NeighborArray;
import org.apache.lucene.util.hnsw.OnHeapHnswGraph;

/**
 * One search's walk over a shared HNSW graph: the graph's own seek/next cursor is a single shared
 * state, so concurrent searches each read the neighbour arrays through a cursor of their own.
 */
final class GraphCursor extends HnswGraph {

    private final OnHeapHnswGraph graph;
    private int[] neighbors = new int[0];
    private int count = 0;
    private int next = 0;

    GraphCursor(OnHeapHnswGraph graph) { this.graph = graph; }

    @Override
    public void seek(int level, int target) {
        NeighborArray array = graph.getNeighbors(level, target);
        neighbors = array.nodes();
        count = array.size();
        next = 0;
    }

    @Override
    public int nextNeighbor() { return next < count ? neighbors[next++] : DocIdSetIterator.NO_MORE_DOCS; }

    @Override public int size() { return graph.size(); }
    @Override public int maxNodeId() { return graph.maxNodeId(); }
    @Override public int numLevels() { return graph.numLevels(); }
    @Override public int entryNode() { return graph.entryNode(); }
    @Override public NodesIterator getNodesOnLevel(int level) { return graph.getNodesOnLevel(level); }

}
