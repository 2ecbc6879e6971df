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
    }

    /** An operator on two numbers. */
    static final class Binary extends ScalarNode {
        private final Node left, right;
        private final DoubleBinaryOperator operator;
        Binary(Node left, Node right, DoubleBinaryOperator operator) { this.left = left; this.right = right; this.operator = operator; }
        @Override double number(int lid) { return operator.applyAsDouble(left.number(lid), right.number(lid)); }
    }

    /** A function of one number. */
    static final class Unary extends ScalarNode {
        private final Node argument;
        private final DoubleUnaryOperator function;
        Unary(Node argument, DoubleUnaryOperator function) { this.argument = argument; this.function = function; }
        @Override double number(int lid) { return function.applyAsDouble(argument.number(lid)); }
    }

    /** if(condition, a, b) where the condition varies by document. */
    static final class If extends ScalarNode {
        private final Node condition, whenTrue, whenFalse;
        If(Node condition, Node whenTrue, Node whenFalse) { this.condition = condition; this.whenTrue = whenTrue; this.whenFalse = whenFalse; }
        @Override double number(int lid) { return condition.number(lid) != 0 ? whenTrue.number(lid) : whenFalse.number(lid); }
    }

    /** Remembers the value for the last document, for functions that several expressions use. */
    static final class Cached extends ScalarNode {
        private final Node inner;
        private int lastLid = -1;
        private double last;
        Cached(Node inner) { this.inner = inner; }
        @Override double number(int lid) {
            if (lid != lastLid) { last = inner.number(lid); lastLid = lid; }
            return last;
        }
    }

    /** A value set from outside per document, e.g. the first-phase score during second-phase ranking. */
    static final class Slot extends ScalarNode {
        double value;
        @Override double number(int lid) { return value; }
    }

}
