package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.evaluation.Context;
import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.function.Function;

/**
 * A part of an expression that has no compiled form: evaluated by searchlib's own evaluator, with the
 * features it references supplied by their compiled nodes for the current document. Correct, but it
 * allocates; the compiler uses it only where no compiled form applies.
 */
final class GenericNode extends Node implements Memo {

    private final ExpressionNode expression;
    private final TensorType type;
    private final DocumentContext context;
    private int lastLid = -1;
    private Value last;

    GenericNode(ExpressionNode expression, Function<String, Node> features) {
        this.context = new DocumentContext(features);
        this.expression = ScalarOperands.rewrite(expression, context);
        this.type = this.expression.type(context);
    }

    @Override TensorType type() { return type; }

    @Override Value value(int lid) {
        if (lid != lastLid) {
            context.lid = lid;
            last = expression.evaluate(context);
            lastLid = lid;
        }
        return last;
    }

    @Override public void forget() { lastLid = -1; }

    @Override double number(int lid) { return value(lid).asDouble(); }

    @Override Tensor tensor(int lid) { return value(lid).asTensor(); }

    /** Features by name, for the current document. */
    private static final class DocumentContext extends Context {
        private final Function<String, Node> features;
        int lid;
        DocumentContext(Function<String, Node> features) { this.features = features; }
        @Override public Value get(String name) { return features.apply(name).value(lid); }
        @Override public TensorType getType(String name) { return features.apply(name).type(); }
        @Override public TensorType getType(com.yahoo.searchlib.rankingexpression.Reference reference) {
            return getType(reference.isIdentifier() ? reference.name() : reference.toString());
        }
        /** A dimension name no function argument binds is itself (with null, reduce(t, sum, d) would keep d in its type). */
        @Override public String resolveBinding(String argument) { return argument; }
    }

}
