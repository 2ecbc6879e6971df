package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.evaluation.DoubleValue;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

/**
 * A compiled piece of a ranking expression, evaluated for one document (local id) at a time.
 * Nodes are built per query (query-constant parts already folded) and used by one thread.
 */
abstract class Node {

    /** The value type: {@link TensorType#empty} for numbers. */
    abstract TensorType type();

    /** Whether this is a constant: the same for every document of every query the program serves (so it may be folded). */
    boolean isConstant() { return false; }

    /** Whether this is the same for every document of a query (a constant, or now), so a loop may read it once per block. */
    boolean isUniform() { return isConstant(); }

    /** The value as a number (the single cell of a tensor). */
    abstract double number(int lid);

    /** The value as a tensor. */
    abstract Tensor tensor(int lid);

    /**
     * The value as a number for each document of a block: out[k] for batch.lids()[k]. This default
     * evaluates document by document; nodes on the hot path override it with one loop over the block.
     */
    void numbers(Batch batch, double[] out) {
        int[] lids = batch.lids();
        for (int k = 0; k < batch.count(); k++) out[k] = number(lids[k]);
    }

    /** The value as searchlib's evaluator sees it. */
    Value value(int lid) {
        return type().rank() == 0 ? new DoubleValue(number(lid)) : new TensorValue(tensor(lid));
    }

}
