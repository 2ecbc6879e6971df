package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.rule.Function;

import java.util.Optional;

/**
 * exp, log, log10, sqrt, abs, tanh, sigmoid, relu, elu and negation of a number, one loop per function over a
 * block (as {@link ArithmeticNode}, for the same reason), computed as searchlib's {@link Function} does.
 */
final class MathNode extends ScalarNode {

    enum Kind { EXP, LOG, LOG10, SQRT, ABS, TANH, SIGMOID, RELU, ELU, NEGATE }

    private final Node argument;
    private final Kind kind;

    MathNode(Node argument, Kind kind) {
        this.argument = argument;
        this.kind = kind;
    }

    /** The kind computing this searchlib function of one argument, if there is one. */
    static Optional<Kind> of(Function function) {
        return Optional.ofNullable(switch (function) {
            case exp -> Kind.EXP;
            case log -> Kind.LOG;
            case log10 -> Kind.LOG10;
            case sqrt -> Kind.SQRT;
            case abs, fabs -> Kind.ABS;
            case tanh -> Kind.TANH;
            case sigmoid -> Kind.SIGMOID;
            case relu -> Kind.RELU;
            case elu -> Kind.ELU;
            default -> null;
        });
    }

    @Override double number(int lid) { return apply(kind, argument.number(lid)); }

    @Override void numbers(Batch batch, double[] out) {
        argument.numbers(batch, out);
        applyInPlace(kind, out, batch.count());
    }

    /** Applies the function to values[0..n), in place: one loop per function, which the JIT compiles on its own. */
    static void applyInPlace(Kind kind, double[] values, int n) {
        switch (kind) {
            case EXP -> { for (int k = 0; k < n; k++) values[k] = Math.exp(values[k]); }
            case LOG -> { for (int k = 0; k < n; k++) values[k] = log(values[k]); }
            case LOG10 -> { for (int k = 0; k < n; k++) values[k] = Math.log10(values[k]); }
            case SQRT -> { for (int k = 0; k < n; k++) values[k] = Math.sqrt(values[k]); }
            case ABS -> { for (int k = 0; k < n; k++) values[k] = Math.abs(values[k]); }
            case TANH -> { for (int k = 0; k < n; k++) values[k] = Math.tanh(values[k]); }
            case SIGMOID -> { for (int k = 0; k < n; k++) values[k] = 1.0 / (1.0 + Math.exp(-values[k])); }
            case RELU -> { for (int k = 0; k < n; k++) values[k] = Math.max(0, values[k]); }
            case ELU -> { for (int k = 0; k < n; k++) values[k] = elu(values[k]); }
            case NEGATE -> { for (int k = 0; k < n; k++) values[k] = -values[k]; }
        }
    }

    /** searchlib's elu: x below 0 is exp(x) - 1, else x. */
    private static double elu(double x) { return x < 0 ? Math.exp(x) - 1 : x; }

    /**
     * Math.log of 0 .. LOGS - 1: ranking features such as log(1 + attribute(upvotes)) take the log of small counts,
     * which a table gives in a fraction of the time, and with the very same bits.
     */
    private static final int LOGS = 4096;
    private static final double[] LOG_OF_INTEGER = new double[LOGS];
    static {
        for (int i = 0; i < LOGS; i++) LOG_OF_INTEGER[i] = Math.log(i);
    }

    /** Math.log(x), from the table where x is one of its integers (-0.0 is 0.0 there, as Math.log has it). */
    static double log(double x) {
        int i = (int) x;
        return i == x && i >= 0 && i < LOGS ? LOG_OF_INTEGER[i] : Math.log(x);
    }

    static double apply(Kind kind, double x) {
        return switch (kind) {
            case EXP -> Math.exp(x);
            case LOG -> log(x);
            case LOG10 -> Math.log10(x);
            case SQRT -> Math.sqrt(x);
            case ABS -> Math.abs(x);
            case TANH -> Math.tanh(x);
            case SIGMOID -> 1.0 / (1.0 + Math.exp(-x));
            case RELU -> Math.max(0, x);
            case ELU -> elu(x);
            case NEGATE -> -x;
        };
    }

}
