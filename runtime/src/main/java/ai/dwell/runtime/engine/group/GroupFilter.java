package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import com.yahoo.searchlib.expression.AndPredicateNode;
import com.yahoo.searchlib.expression.ExpressionNode;
import com.yahoo.searchlib.expression.FilterExpressionNode;
import com.yahoo.searchlib.expression.IsTruePredicateNode;
import com.yahoo.searchlib.expression.MultiArgPredicateNode;
import com.yahoo.searchlib.expression.NotPredicateNode;
import com.yahoo.searchlib.expression.OrPredicateNode;
import com.yahoo.searchlib.expression.RangePredicateNode;
import com.yahoo.searchlib.expression.RegexPredicateNode;

import java.util.List;
import java.util.Optional;

/**
 * A grouping level's filter, as proton's GroupingLevel applies it: a document the filter does not allow is not put
 * into a group of the level (nor below it), though it still counts in the groups above. regex(pattern, value) is a
 * full match of the value's string, with RE2 syntax (re2j; proton's vespalib Regex is RE2); range(low, high, value)
 * compares the value as a float, bounds inclusive as the request says; istrue(value) of a bool attribute allows
 * the documents where it is true (any other value is proton's error, "istrue() requires input to be type bool");
 * and, or, not combine them. Any other filter fails naming it.
 */
abstract class GroupFilter {

    abstract boolean allow(int lid, double rank);

    static GroupFilter compile(FilterExpressionNode node, GroupValues compiler) {
        if (node instanceof RegexPredicateNode regex) {
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex.getPattern());
            }
            catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("Grouping filter regex '" + regex.getPattern() + "' is invalid: " + e.getMessage());
            }
            GroupValue value = argument(regex.getExpression(), compiler);
            if (value == null) return never();
            if (value.type() == GroupValue.Type.RAW)
                throw new UnsupportedFeatureException("Grouping filter regex of a raw value (cat, md5) is not supported by this content engine");
            return new GroupFilter() {
                @Override boolean allow(int lid, double rank) { return pattern.matches(value.string(lid, rank)); }
            };
        }
        if (node instanceof RangePredicateNode range) {
            GroupValue value = argument(range.getExpression(), compiler);
            if (value == null) return never();
            double lower = range.getLower().doubleValue(), upper = range.getUpper().doubleValue();
            boolean lowerInclusive = range.getLowerInclusive(), upperInclusive = range.getUpperInclusive();
            return new GroupFilter() {
                @Override boolean allow(int lid, double rank) {
                    double v = value.floating(lid, rank);
                    return (lowerInclusive ? v >= lower : v > lower) && (upperInclusive ? v <= upper : v < upper);
                }
            };
        }
        if (node instanceof IsTruePredicateNode isTrue) {
            if (isTrue.getExpression().isEmpty()) return never();
            GroupValue value = compiler.compileBool(isTrue.getExpression().get());
            return new GroupFilter() {
                @Override boolean allow(int lid, double rank) { return value.integer(lid, rank) != 0; }
            };
        }
        if (node instanceof NotPredicateNode not) {
            if (not.getExpression().isEmpty()) return never();
            GroupFilter inner = compile(not.getExpression().get(), compiler);
            return new GroupFilter() {
                @Override boolean allow(int lid, double rank) { return ! inner.allow(lid, rank); }
            };
        }
        if (node instanceof AndPredicateNode || node instanceof OrPredicateNode) {
            List<FilterExpressionNode> args = ((MultiArgPredicateNode) node).getArgs();
            GroupFilter[] filters = args.stream().map(arg -> compile(arg, compiler)).toArray(GroupFilter[]::new);
            boolean and = node instanceof AndPredicateNode;
            return new GroupFilter() {
                @Override boolean allow(int lid, double rank) {
                    for (GroupFilter filter : filters) {
                        if (filter.allow(lid, rank) != and) return ! and;
                    }
                    return and;
                }
            };
        }
        throw new UnsupportedFeatureException("Grouping filter " + node.getClass().getSimpleName() + " is not supported by this content engine: " +
                                              "only regex, range, istrue, and, or, not");
    }

    /** The filter's value; null where the request has none (proton's filter then allows nothing). */
    private static GroupValue argument(Optional<ExpressionNode> expression, GroupValues compiler) {
        return expression.map(compiler::compile).orElse(null);
    }

    private static GroupFilter never() {
        return new GroupFilter() {
            @Override boolean allow(int lid, double rank) { return false; }
        };
    }

}
