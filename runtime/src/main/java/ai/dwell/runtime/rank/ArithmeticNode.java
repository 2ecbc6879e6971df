package ai.dwell.runtime.rank;

/**
 * +, −, ·, /, max and min of two numbers, one loop per operator over a block, with a uniform side (a constant, or now) read
 * once: no call per document through a shared operator interface (which the JIT cannot inline where many
 * operators pass the same loop), so the hot first-phase arithmetic runs as straight array loops.
 */
final class ArithmeticNode extends ScalarNode {

    enum Kind { ADD, SUBTRACT, MULTIPLY, DIVIDE, MAX, MIN }

    private final Node left, right;
    private final Kind kind;
    private double[] rightValues = new double[0];

    ArithmeticNode(Node left, Node right, Kind kind) {
        this.left = left;
        this.right = right;
        this.kind = kind;
    }

    @Override double number(int lid) { return apply(kind, left.number(lid), right.number(lid)); }

    @Override void numbers(Batch batch, double[] out) {
        int n = batch.count();
        if (right.isUniform()) {
            left.numbers(batch, out);
            withConstantRight(out, n, right.number(0));
        }
        else if (left.isUniform()) {
            right.numbers(batch, out);
            withConstantLeft(left.number(0), out, n);
        }
        else {
            rightValues = Batch.atLeast(rightValues, n);
            left.numbers(batch, out);
            right.numbers(batch, rightValues);
            withValues(out, rightValues, n);
        }
    }

    private void withConstantRight(double[] out, int n, double c) {
        switch (kind) {
            case ADD -> { for (int k = 0; k < n; k++) out[k] = out[k] + c; }
            case SUBTRACT -> { for (int k = 0; k < n; k++) out[k] = out[k] - c; }
            case MULTIPLY -> { for (int k = 0; k < n; k++) out[k] = out[k] * c; }
            case DIVIDE -> { for (int k = 0; k < n; k++) out[k] = out[k] / c; }
            case MAX -> { for (int k = 0; k < n; k++) out[k] = Math.max(out[k], c); }
            case MIN -> { for (int k = 0; k < n; k++) out[k] = Math.min(out[k], c); }
        }
    }

    private void withConstantLeft(double c, double[] out, int n) {
        switch (kind) {
            case ADD -> { for (int k = 0; k < n; k++) out[k] = c + out[k]; }
            case SUBTRACT -> { for (int k = 0; k < n; k++) out[k] = c - out[k]; }
            case MULTIPLY -> { for (int k = 0; k < n; k++) out[k] = c * out[k]; }
            case DIVIDE -> { for (int k = 0; k < n; k++) out[k] = c / out[k]; }
            case MAX -> { for (int k = 0; k < n; k++) out[k] = Math.max(c, out[k]); }
            case MIN -> { for (int k = 0; k < n; k++) out[k] = Math.min(c, out[k]); }
        }
    }

    private void withValues(double[] out, double[] values, int n) {
        switch (kind) {
            case ADD -> { for (int k = 0; k < n; k++) out[k] = out[k] + values[k]; }
            case SUBTRACT -> { for (int k = 0; k < n; k++) out[k] = out[k] - values[k]; }
            case MULTIPLY -> { for (int k = 0; k < n; k++) out[k] = out[k] * values[k]; }
            case DIVIDE -> { for (int k = 0; k < n; k++) out[k] = out[k] / values[k]; }
            case MAX -> { for (int k = 0; k < n; k++) out[k] = Math.max(out[k], values[k]); }
            case MIN -> { for (int k = 0; k < n; k++) out[k] = Math.min(out[k], values[k]); }
        }
    }

    static double apply(Kind kind, double a, double b) {
        return switch (kind) {
            case ADD -> a + b;
            case SUBTRACT -> a - b;
            case MULTIPLY -> a * b;
            case DIVIDE -> a / b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
        };
    }

}
