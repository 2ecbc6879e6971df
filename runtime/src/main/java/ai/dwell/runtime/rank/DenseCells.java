package ai.dwell.runtime.rank;

/** A node whose value is a dense tensor of bound size, computable for a block of documents at once. */
interface DenseCells {

    /** The number of cells of one document's value. */
    int cellCount();

    /** The cells of one document's value, in direct index order; the array may be reused. */
    double[] values(int lid);

    /** The cells of the documents of the block, cell-major (cell i of document k at i·count + k); reused. */
    double[] cells(Batch batch);

}
