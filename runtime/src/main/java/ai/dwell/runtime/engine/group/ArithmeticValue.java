package ai.dwell.runtime.engine.group;

import java.util.List;

/**
 * add, mul, div, mod, min and max of two or more values, as proton's NumericFunctionNode and its MultiArgFunctionNode
 * fold them: the first argument, then each further argument applied in turn, in the type the arguments convert to
 * (integer unless one is a float). In integers, division and modulo by 0 give 0; in floats, division by 0 gives 0 and
 * modulo is that of the values rounded to integers. sub(a, b) arrives as add(a, neg(b)).
 */
final class ArithmeticValue extends GroupValue {

    enum Operation { ADD, MULTIPLY, DIVIDE, MODULO, MIN, MAX }

    private final Operation operation;
    private final GroupValue[] arguments;

    ArithmeticValue(Operation operation, List<GroupValue> arguments) {
        super(typeOf(arguments));
        this.operation = operation;
        this.arguments = arguments.toArray(GroupValue[]::new);
    }

    private static Type typeOf(List<GroupValue> arguments) {
        Type type = arguments.get(0).type();
        for (GroupValue argument : arguments) {
            if (argument.type() == Type.FLOAT || type == Type.FLOAT) type = Type.FLOAT;
            else if (argument.type() == Type.INTEGER || type == Type.INTEGER) type = Type.INTEGER;
        }
        return type;
    }

    @Override
    public long integer(int lid, double rank) {
        if (type() != Type.INTEGER) return super.integer(lid, rank);
        long result = arguments[0].integer(lid, rank);
        for (int i = 1; i < arguments.length; i++) {
            long b = arguments[i].integer(lid, rank);
            result = switch (operation) {
                case ADD -> result + b;
                case MULTIPLY -> result * b;
                case DIVIDE -> b == 0 ? 0 : result / b;
                case MODULO -> b == 0 ? 0 : result % b;
                case MIN -> Math.min(result, b);
                case MAX -> Math.max(result, b);
            };
        }
        return result;
    }

    @Override
    public double floating(int lid, double rank) {
        if (type() != Type.FLOAT) return super.floating(lid, rank);
        double result = arguments[0].floating(lid, rank);
        for (int i = 1; i < arguments.length; i++) {
            GroupValue argument = arguments[i];
            result = switch (operation) {
                case ADD -> result + argument.floating(lid, rank);
                case MULTIPLY -> result * argument.floating(lid, rank);
                case DIVIDE -> { double b = argument.floating(lid, rank); yield b == 0 ? 0 : result / b; }
                case MODULO -> { long b = argument.integer(lid, rank); yield b == 0 ? 0 : roundToLong(result) % b; }
                case MIN -> { double b = argument.floating(lid, rank); yield b < result ? b : result; }
                case MAX -> { double b = argument.floating(lid, rank); yield b > result ? b : result; }
            };
        }
        return result;
    }

}
