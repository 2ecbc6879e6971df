package ai.dwell.runtime.rank;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * foreach(terms, variable, feature, condition, operation), as searchlib's ForeachExecutor: the feature with the variable
 * replaced by each term index 0 to foreach.maxTerms − 1 (16 unless the profile sets it; a term past the query's last
 * gives its features' values without a term, such as 0), the values that pass the condition ("true", "&lt;a" or
 * "&gt;a") combined by the operation (sum, product, average, max, min or count). The dimensions fields and attributes,
 * which iterate over proton's field list, are refused.
 */
final class ForeachNode extends ScalarNode {

    enum Operation { SUM, PRODUCT, AVERAGE, MAX, MIN, COUNT }

    private final Node[] inputs;
    private final char condition; // 't', '<' or '>'
    private final double bound;
    private final Operation operation;

    ForeachNode(List<Node> inputs, char condition, double bound, Operation operation) {
        this.inputs = inputs.toArray(Node[]::new);
        this.condition = condition;
        this.bound = bound;
        this.operation = operation;
    }

    /** The instances of the feature: the variable, where it stands as a word, replaced by each of the values. */
    static String replace(String feature, String variable, String value) {
        return Pattern.compile("(?<![A-Za-z0-9_])" + Pattern.quote(variable) + "(?![A-Za-z0-9_])").matcher(feature)
                      .replaceAll(Matcher.quoteReplacement(value));
    }

    static Operation operation(String name, String feature) {
        return switch (name) {
            case "sum" -> Operation.SUM;
            case "product" -> Operation.PRODUCT;
            case "average" -> Operation.AVERAGE;
            case "max" -> Operation.MAX;
            case "min" -> Operation.MIN;
            case "count" -> Operation.COUNT;
            default -> throw new UnsupportedFeatureException("feature '" + feature + "': the operation of foreach is one of sum, product, " +
                                                             "average, max, min and count, not '" + name + "'");
        };
    }

    @Override boolean isConstant() {
        for (Node input : inputs) if ( ! input.isConstant()) return false;
        return true;
    }

    @Override double number(int lid) {
        double result = switch (operation) {
            case PRODUCT -> 1;
            case MAX -> -Double.MAX_VALUE;
            case MIN -> Double.MAX_VALUE;
            default -> 0;
        };
        int count = 0;
        for (Node input : inputs) {
            double value = input.number(lid);
            boolean use = switch (condition) {
                case '<' -> value < bound;
                case '>' -> value > bound;
                default -> true;
            };
            if ( ! use) continue;
            count++;
            result = switch (operation) {
                case SUM, AVERAGE -> result + value;
                case PRODUCT -> result * value;
                case MAX -> Math.max(value, result);
                case MIN -> Math.min(value, result);
                case COUNT -> result + 1;
            };
        }
        return operation == Operation.AVERAGE ? (count != 0 ? result / count : 0) : result;
    }

}
