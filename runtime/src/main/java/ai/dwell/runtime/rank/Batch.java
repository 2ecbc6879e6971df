package ai.dwell.runtime.rank;

/**
 * A block of documents that a rank program evaluates together, node by node, so that each node runs one
 * tight loop over the block (vectorised by the JIT where it can) instead of a call chain per document.
 * Holds the local ids, their first-phase scores (for second-phase expressions that read firstPhase),
 * and a generation that changes with every block, by which nodes know their cached block is stale.
 * Arrays grow as needed and are reused: evaluation allocates nothing per document.
 */
final class Batch {

    private int[] lids = new int[0];
    private double[] firstPhase = new double[0];
    private int count;
    private int generation;

    /** Starts a new block of count documents: fill lids() (and firstPhase() for the second phase) next. */
    void start(int count) {
        if (count > lids.length) {
            lids = new int[count];
            firstPhase = new double[count];
        }
        this.count = count;
        generation++;
    }

    int count() { return count; }
    int[] lids() { return lids; }
    double[] firstPhase() { return firstPhase; }
    int generation() { return generation; }

    /** An array of at least this size: the given one if large enough, else a new one. */
    static double[] atLeast(double[] array, int size) {
        return array.length >= size ? array : new double[Math.max(size, array.length * 3 / 2)];
    }

}
