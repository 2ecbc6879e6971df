package ai.dwell.runtime.rank;

import java.util.ArrayList;
import java.util.List;

/**
 * A rank table of the native rank features, made from a function name as searchlib's FunctionTableFactory makes it
 * (proton's only table factory, with 256 elements unless the name gives a size as a last argument):
 * <ul>
 *   <li>expdecay(w,t): w·e^(−x/t)
 *   <li>loggrowth(w,t,s): w·ln(1 + x/s) + t
 *   <li>linear(w,t): w·x + t
 * </ul>
 * for x = 0, 1, ... Reading past the end gives the last element. A name that is none of these, or has the wrong
 * number of arguments, is refused: proton fails to set up the rank profile then.
 */
final class FunctionTable {

    /** Proton's default table size. */
    static final int DEFAULT_SIZE = 256;

    private final String name;
    private final double[] values;
    private final double max;

    private FunctionTable(String name, double[] values) {
        this.name = name;
        this.values = values;
        double largest = -Double.MAX_VALUE;
        for (double value : values) largest = Math.max(value, largest);
        this.max = largest;
    }

    /** The table a function name gives; throws {@link IllegalArgumentException} saying why for one proton cannot make. */
    static FunctionTable of(String name) {
        int open = name.indexOf('('), close = name.indexOf(')');
        if (open < 0 || close < 0 || open >= close)
            throw new IllegalArgumentException("'" + name + "' is not a table function: expdecay(w,t), loggrowth(w,t,s) or linear(w,t), with an optional size");
        String type = name.substring(0, open);
        List<Double> arguments = new ArrayList<>();
        String list = name.substring(open + 1, close);
        for (String argument : list.split(",")) {
            if (argument.isBlank()) continue;
            try {
                arguments.add(Double.parseDouble(argument.trim()));
            }
            catch (NumberFormatException e) {
                throw new IllegalArgumentException("table '" + name + "': '" + argument.trim() + "' is not a number");
            }
        }
        int expected = switch (type) {
            case "expdecay", "linear" -> 2;
            case "loggrowth" -> 3;
            default -> throw new IllegalArgumentException("table '" + name + "': '" + type + "' is not a table function (expdecay, loggrowth or linear)");
        };
        if (arguments.size() != expected && arguments.size() != expected + 1)
            throw new IllegalArgumentException("table '" + name + "': " + type + " takes " + expected + " arguments and an optional size");
        int size = DEFAULT_SIZE;
        if (arguments.size() == expected + 1) {
            double given = arguments.get(expected);
            if (given != Math.rint(given) || given < 1 || given > 1 << 24)
                throw new IllegalArgumentException("table '" + name + "': the size must be a whole number from 1 to " + (1 << 24));
            size = (int) given;
        }
        double w = arguments.get(0), t = arguments.get(1);
        double[] values = new double[size];
        for (int x = 0; x < size; x++) {
            values[x] = switch (type) {
                case "expdecay" -> w * Math.exp(-(x / t));
                case "loggrowth" -> w * Math.log(1 + (x / arguments.get(2))) + t;
                default -> w * x + t;
            };
        }
        return new FunctionTable(name, values);
    }

    String name() { return name; }

    int size() { return values.length; }

    /** The largest element. */
    double max() { return max; }

    /** The element at index, or the last one when index is past the end. */
    double get(long index) { return values[(int) Math.min(index, values.length - 1)]; }

    /**
     * The element at index as searchlib's SymmetricTable reads it: for negative indexes the negated element at −index,
     * and the last (negated) element beyond either end.
     */
    double symmetric(long index) {
        int last = values.length - 1;
        if (index >= 0) return values[(int) Math.min(index, last)];
        int at = (int) Math.min(-index, last);
        return at == 0 ? values[0] : -values[at]; // element 0 is not negated (it is the one a table of one element has)
    }

}
