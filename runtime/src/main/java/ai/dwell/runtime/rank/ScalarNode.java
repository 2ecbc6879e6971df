package ai.dwell.runtime.rank;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/** A node whose value is a number, computed without allocation. */
abstract class ScalarNode extends Node {

    @Override final TensorType type() { return TensorType.empty; }

    @Override final Tensor tensor(int lid) { return Tensor.from(number(lid)); }

    /** A number that is the same for all documents of the query. */
    static final class Constant extends ScalarNode {
        private final double value;
        Constant(double value) { this.value = value; }
        @Override boolean isConstant() { return true; }
        @Override double number(int lid) { return value; }
        @Override void numbers(Batch batch, double[] out) { java.util.Arrays.fill(out, 0, batch.count(), value); }
    }

    /** An operator on two numbers. */
    static final class Binary extends ScalarNode {
        private final Node left, right;
        private final DoubleBinaryOperator operator;
        Binary(Node left, Node right, DoubleBinaryOperator operator) { this.left = left; this.right = right; this.operator = operator; }
        private double[] rightValues = new double[0];
        @Override double number(int lid) { return operator.applyAsDouble(left.number(lid), right.number(lid)); }
        @Override void numbers(Batch batch, double[] out) {
            int n = batch.count();
            rightValues = Batch.atLeast(rightValues, n);
            left.numbers(batch, out);
            right.numbers(batch, rightValues);
            for (int k = 0; k < n; k++) out[k] = operator.applyAsDouble(out[k], rightValues[k]);
        }
    }

    /** A value computed for each document by a function of its local id (e.g. one output of a per-document computation). */
    static final class OfDocument extends ScalarNode {
        private final java.util.function.IntToDoubleFunction value;
        OfDocument(java.util.function.IntToDoubleFunction value) { this.value = value; }
        @Override double number(int lid) { return value.applyAsDouble(lid); }
    }

    /** A function of one number. */
    static final class Unary extends ScalarNode {
        private final Node argument;
        private final DoubleUnaryOperator function;
        Unary(Node argument, DoubleUnaryOperator function) { this.argument = argument; this.function = function; }
        @Override double number(int lid) { return function.applyAsDouble(argument.number(lid)); }
        @Override void numbers(Batch batch, double[] out) {
            argument.numbers(batch, out);
            for (int k = 0; k < batch.count(); k++) out[k] = function.applyAsDouble(out[k]);
        }
    }

    /** if(condition, a, b) where the condition varies by document. */
    static final class If extends ScalarNode {
        private final Node condition, whenTrue, whenFalse;
        If(Node condition, Node whenTrue, Node whenFalse) { this.condition = condition; this.whenTrue = whenTrue; this.whenFalse = whenFalse; }
        private double[] trueValues = new double[0], falseValues = new double[0];
        @Override double number(int lid) { return condition.number(lid) != 0 ? whenTrue.number(lid) : whenFalse.number(lid); }
        @Override void numbers(Batch batch, double[] out) {
            int n = batch.count();
            trueValues = Batch.atLeast(trueValues, n);
            falseValues = Batch.atLeast(falseValues, n);
            condition.numbers(batch, out);
            whenTrue.numbers(batch, trueValues);
            whenFalse.numbers(batch, falseValues);
            for (int k = 0; k < n; k++) out[k] = out[k] != 0 ? trueValues[k] : falseValues[k];
        }
    }

    /**
     * now, the clock's second when the query started: the same for every document of a query, and set for each query
     * ({@link #start}), so that one compiled program serves every second.
     */
    static final class Now extends ScalarNode {
        private double second;
        Now(long second) { this.second = second; }
        void start(long second) { this.second = second; }
        @Override boolean isUniform() { return true; }
        @Override double number(int lid) { return second; }
        @Override void numbers(Batch batch, double[] out) { java.util.Arrays.fill(out, 0, batch.count(), second); }
    }

    /** Remembers the value for the last document, for functions that several expressions use. */
    static final class Cached extends ScalarNode implements Memo {
        private final Node inner;
        private int lastLid = -1;
        private double last;
        Cached(Node inner) { this.inner = inner; }
        Node inner() { return inner; }
        private double[] block = new double[0];
        private int blockGeneration = -1;
        @Override double number(int lid) {
            if (lid != lastLid) { last = inner.number(lid); lastLid = lid; }
            return last;
        }
        @Override public void forget() { lastLid = -1; }
        @Override void numbers(Batch batch, double[] out) {
            if (batch.generation() != blockGeneration) {
                block = Batch.atLeast(block, batch.count());
                inner.numbers(batch, block);
                blockGeneration = batch.generation();
            }
            System.arraycopy(block, 0, out, 0, batch.count());
        }
    }

    /**
     * firstPhase: the first-phase score, which a block of the second phase carries. Elsewhere (a match
     * or summary feature) it is not available here, and says so rather than giving a wrong number.
     */
    static final class FirstPhase extends ScalarNode {
        private Node expression; // the compiled first-phase expression, once the program has it
        /** The document's first-phase score: as the ranking computed it in a second phase, else computed again for it. */
        void bind(Node firstPhaseExpression) { this.expression = firstPhaseExpression; }
        @Override double number(int lid) {
            if (expression == null) throw new UnsupportedFeatureException("firstPhase cannot be used in the first-phase expression itself");
            return expression.number(lid);
        }
        @Override void numbers(Batch batch, double[] out) { System.arraycopy(batch.firstPhase(), 0, out, 0, batch.count()); }
    }

}
