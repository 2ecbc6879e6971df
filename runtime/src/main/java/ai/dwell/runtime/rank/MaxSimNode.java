package ai.dwell.runtime.rank;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.List;

/**
 * The compiled steps of late interaction (ColBERT's max-sim) between a query tensor of one mapped dimension outside a
 * vector, tensor(qt{},x[n]), and a document's token vectors ({@link TokenRows}): sum(reduce(sum(query(qt) * d, x),
 * max, dt), qt), also over documents of several mapped dimensions (colbert-long's context{} and token{}), with the max
 * over all of them or over the innermost only. Each step computes what searchlib's Java evaluator computes for the
 * same expression, in doubles and, within a vector, in the same order, so each dot product and maximum is bit for bit
 * the evaluator's; only a sum over a mapped dimension may add in another order (here: the query's order of labels,
 * the document's order of subspaces), which changes at most the last bits of a double. Nothing is allocated per
 * document: arrays are reused and grow to the largest document.
 */
final class MaxSimNode {

    private MaxSimNode() {}

    /**
     * reduce(join(q, d, f(a,b)(a * b)), sum, x): the dot product of each query vector with each document row, a tensor
     * of the document's mapped dimensions and the query's. Row r's products with query vector j are at r·Q + j.
     */
    static final class Dots extends Node implements Memo {
        private final TensorType type;
        private final TokenRows rows;
        private final String queryDimension;
        private final String[] queryLabels;
        private final double[] query; // Q vectors of n cells
        private double[] dots = new double[0];
        private int count, lastLid = -1;

        Dots(TensorType type, TokenRows rows, String queryDimension, String[] queryLabels, double[] query) {
            if (query.length != queryLabels.length * rows.size()) throw new IllegalArgumentException("Expected " + queryLabels.length + " vectors of " + rows.size());
            this.type = type;
            this.rows = rows;
            this.queryDimension = queryDimension;
            this.queryLabels = queryLabels;
            this.query = query;
        }

        @Override TensorType type() { return type; }
        TokenRows rows() { return rows; }
        int queryVectors() { return queryLabels.length; }
        String queryDimension() { return queryDimension; }
        String queryLabel(int j) { return queryLabels[j]; }

        /** Computes the document's dot products once; returns its number of rows, whose products {@link #dots} then holds. */
        int compute(int lid) {
            if (lid == lastLid) return count;
            int r = rows.load(lid), q = queryLabels.length, n = rows.size();
            if (dots.length < r * q) dots = new double[Math.max(r * q, dots.length * 2)];
            double[] d = rows.cells;
            for (int row = 0; row < r; row++) {
                for (int j = 0; j < q; j++) {
                    double sum = 0.0;
                    for (int i = 0, a = row * n, b = j * n; i < n; i++) sum += query[b + i] * d[a + i];
                    dots[row * q + j] = sum;
                }
            }
            lastLid = lid;
            return count = r;
        }

        double[] dots() { return dots; }

        @Override public void forget() { lastLid = -1; }
        @Override double number(int lid) { return tensor(lid).asDouble(); }

        @Override Tensor tensor(int lid) {
            int r = compute(lid), q = queryLabels.length;
            List<String> mapped = rows.mappedDimensions();
            Tensor.Builder builder = Tensor.Builder.of(type);
            for (int row = 0; row < r; row++) {
                for (int j = 0; j < q; j++) {
                    var cell = builder.cell();
                    for (int m = 0; m < mapped.size(); m++) cell = cell.label(mapped.get(m), rows.label(row, m));
                    cell.label(queryDimension, queryLabels[j]).value(dots[row * q + j]);
                }
            }
            return builder.build();
        }
    }

    /** reduce(dots, max, all the document's mapped dimensions): for each query vector, its largest dot product, a tensor(qt{}). */
    static final class MaxOverRows extends SubspaceNode {
        private final Dots dots;
        MaxOverRows(TensorType type, Dots dots) {
            super(type);
            if (type.rank() != 1 || type.dimension(dots.queryDimension()).isEmpty()) throw new IllegalArgumentException("Cannot reduce " + dots.type() + " to " + type);
            this.dots = dots;
        }
        @Override SubspaceNode layout() { return this; }
        @Override String label(int subspace) { return dots.queryLabel(subspace); }
        @Override int computeInto(int lid) {
            int r = dots.compute(lid), q = dots.queryVectors();
            if (r == 0) return 0; // the join with an empty tensor is empty
            double[] in = dots.dots(), out = reserve(q);
            for (int j = 0; j < q; j++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int row = 0; row < r; row++) if (in[row * q + j] > max) max = in[row * q + j];
                out[j] = max;
            }
            return q;
        }
    }

    /**
     * sum(reduce(dots, max, inner), qt) of a document of two mapped dimensions, the outer (colbert-long's context) kept:
     * for each label of the outer dimension, the sum over query vectors of their largest dot product with the rows of
     * that label, a tensor(context{}). Labels in the order the document's rows first have them.
     */
    static final class SumOfGroupMax extends SubspaceNode {
        private final Dots dots;
        private final int kept;
        private String[] groups = new String[0];
        private int[] groupOfRow = new int[0];
        private double[] max = new double[0];

        /** @param kept the index, among the document's mapped dimensions, of the one kept */
        SumOfGroupMax(TensorType type, Dots dots, int kept) {
            super(type);
            if (type.rank() != 1 || ! type.dimensions().get(0).name().equals(dots.rows().mappedDimensions().get(kept)))
                throw new IllegalArgumentException("Cannot reduce " + dots.type() + " to " + type);
            this.dots = dots;
            this.kept = kept;
        }
        @Override SubspaceNode layout() { return this; }
        @Override String label(int subspace) { return groups[subspace]; }
        @Override int computeInto(int lid) {
            int r = dots.compute(lid), q = dots.queryVectors();
            TokenRows rows = dots.rows();
            if (groupOfRow.length < r) groupOfRow = new int[Math.max(r, groupOfRow.length * 2)];
            int g = 0;
            for (int row = 0; row < r; row++) {
                String label = rows.label(row, kept);
                int found = -1;
                if (g > 0 && groups[g - 1].equals(label)) found = g - 1;
                for (int k = 0; found < 0 && k < g; k++) if (groups[k].equals(label)) found = k;
                if (found < 0) {
                    if (g == groups.length) groups = java.util.Arrays.copyOf(groups, Math.max(4, groups.length * 2));
                    groups[found = g++] = label;
                }
                groupOfRow[row] = found;
            }
            if (q == 0) return 0; // no query vectors: an empty tensor
            if (max.length < g * q) max = new double[Math.max(g * q, max.length * 2)];
            java.util.Arrays.fill(max, 0, g * q, Double.NEGATIVE_INFINITY);
            double[] in = dots.dots();
            for (int row = 0; row < r; row++)
                for (int j = 0, at = groupOfRow[row] * q; j < q; j++, at++) if (in[row * q + j] > max[at]) max[at] = in[row * q + j];
            double[] out = reserve(g);
            for (int k = 0; k < g; k++) {
                double sum = 0.0;
                for (int j = 0; j < q; j++) sum += max[k * q + j];
                out[k] = sum;
            }
            return g;
        }
    }

}
