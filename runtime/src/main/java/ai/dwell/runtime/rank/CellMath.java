package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.VectorApi;

/**
 * The loops of the network's dense layers over a block of documents (cell-major, {@link VectorNode}): with SIMD through
 * the JDK's vector API when the JVM runs with --add-modules jdk.incubator.vector (./dwell start does), else scalar
 * loops. The JIT does not vectorise the scalar forms of the first two (an array read, scaled and added into another),
 * and the vector API does each in a third to a fifth of the time (a 9-9-9-1 network over 2,000 documents).
 *
 * <ul>
 *   <li>{@link #addScaled} and {@link #roundToFloat} give the scalar loops' very bits: each lane multiplies, then adds
 *       (no fused multiply-add), and rounds, as Java's scalar arithmetic does.</li>
 *   <li>{@link #eluInPlace} is used only for cells rounded to float afterwards (the hidden layers are
 *       tensor&lt;float&gt;): the vector API's exp (Intel's SVML where C2 compiles it) and Math.exp may differ in the
 *       last bit of a double, which the rounding to float hides except where a double lies within that bit of a float
 *       rounding boundary (about one cell in 2^29). Every cell of a block goes through the same lanes, the last ones
 *       included, so a document's cells do not depend on its place in the block.</li>
 * </ul>
 */
public final class CellMath {

    interface Operations {
        /** out[to + k] += x[from + k] * w, for k in [0, n). */
        void addScaled(double[] out, int to, double[] x, int from, double w, int n);
        /** values[k] = (float) values[k], for k in [0, n). */
        void roundToFloat(double[] values, int n);
        /** values[k] = values[k] &lt; 0 ? exp(values[k]) - 1 : values[k], for k in [0, n): searchlib's elu. */
        void eluInPlace(double[] values, int n);
    }

    private static final Operations OPERATIONS = choose();

    private CellMath() {}

    static void addScaled(double[] out, int to, double[] x, int from, double w, int n) { OPERATIONS.addScaled(out, to, x, from, w, n); }

    static void roundToFloat(double[] values, int n) { OPERATIONS.roundToFloat(values, n); }

    static void eluInPlace(double[] values, int n) { OPERATIONS.eluInPlace(values, n); }

    /**
     * Runs each loop in a daemon thread until the JIT has compiled it (about half a second of one core): until C2 has
     * compiled them, the vector API's loops run its Java fallback, which boxes every vector, and one 2,000-document
     * window took 73-82 ms of a node's search (2.5-2.8 ms scalar), enough for the first neural queries after a start to
     * run past their timeout.
     */
    public static void warmUpInBackground() {
        if ( ! simd()) return;
        Thread thread = new Thread(CellMath::warmUp, "cell-math-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    static void warmUp() {
        int n = 2048;
        double[] cells = new double[2 * n];
        for (int round = 0; round < 800; round++) {
            for (int i = 0; i < cells.length; i++) cells[i] = (i % 37) - 18.5;
            addScaled(cells, 0, cells, n, 0.5, n);
            roundToFloat(cells, n);
            eluInPlace(cells, n);
        }
    }

    /** Whether SIMD is in use. */
    static boolean simd() { return ! (OPERATIONS instanceof Scalar); }

    private static Operations choose() {
        return VectorApi.orScalar(() -> (Operations) Class.forName("ai.dwell.runtime.rank.SimdCellMath").getDeclaredConstructor().newInstance(),
                                  new Scalar(), "the network's layers");
    }

    static final class Scalar implements Operations {

        @Override
        public void addScaled(double[] out, int to, double[] x, int from, double w, int n) {
            for (int k = 0; k < n; k++) out[to + k] += x[from + k] * w;
        }

        @Override
        public void roundToFloat(double[] values, int n) {
            for (int k = 0; k < n; k++) values[k] = (float) values[k];
        }

        @Override
        public void eluInPlace(double[] values, int n) { MathNode.applyInPlace(MathNode.Kind.ELU, values, n); }

    }

}
