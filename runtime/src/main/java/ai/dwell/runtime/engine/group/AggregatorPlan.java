package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.searchlib.aggregation.AggregationResult;
import com.yahoo.searchlib.aggregation.AverageAggregationResult;
import com.yahoo.searchlib.aggregation.CountAggregationResult;
import com.yahoo.searchlib.aggregation.ExpressionCountAggregationResult;
import com.yahoo.searchlib.aggregation.Group;
import com.yahoo.searchlib.aggregation.HitsAggregationResult;
import com.yahoo.searchlib.aggregation.MaxAggregationResult;
import com.yahoo.searchlib.aggregation.MinAggregationResult;
import com.yahoo.searchlib.aggregation.QuantileAggregationResult;
import com.yahoo.searchlib.aggregation.StandardDeviationAggregationResult;
import com.yahoo.searchlib.aggregation.SumAggregationResult;
import com.yahoo.searchlib.aggregation.XorAggregationResult;
import com.yahoo.searchlib.expression.AggregationRefNode;
import com.yahoo.searchlib.expression.ConstantNode;
import com.yahoo.searchlib.expression.ExpressionNode;
import com.yahoo.searchlib.expression.FloatResultNode;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.expression.MultiArgFunctionNode;

import java.util.List;

/**
 * The aggregators of the groups of one level (or of the root), compiled once from the level's group prototype:
 * count() (of documents, and of the groups of the level below: a HyperLogLog sketch of their ids' hashes), summary(), sum, avg, min, max, xor,
 * stddev and quantiles (a KLL sketch) of an expression. Any other aggregator, and an order-by
 * expression that is not arithmetic over the group's aggregates and constants, fails here naming it.
 */
final class AggregatorPlan {

    private final List<AggregationResult> prototypes;
    private final GroupValue[] values;
    private final GroupClassifier[] groupIds;
    /** Per aggregator, the multi-value attribute whose elements it aggregates one by one (proton's flattening); else null. */
    private final LeafValues.Element[] flattened;
    private final DocumentIndex index;
    private final int distributionKey;

    AggregatorPlan(Group prototype, GroupValues compiler, DocumentIndex index, int distributionKey) {
        this.prototypes = prototype.getAggregationResults();
        this.values = new GroupValue[prototypes.size()];
        this.groupIds = new GroupClassifier[prototypes.size()];
        this.flattened = new LeafValues.Element[prototypes.size()];
        this.index = index;
        this.distributionKey = distributionKey;
        for (int i = 0; i < prototypes.size(); i++) {
            AggregationResult result = prototypes.get(i);
            Class<?> kind = result.getClass();
            if (kind == CountAggregationResult.class || kind == HitsAggregationResult.class) continue;
            if (kind == ExpressionCountAggregationResult.class) { // count() of groups: the next level's group-by expression
                try {
                    GroupClassifier buckets = GroupingRunner.buckets(result.getExpression(), compiler);
                    groupIds[i] = buckets != null ? buckets : GroupClassifier.of(compiler.compile(result.getExpression()));
                }
                catch (UnsupportedFeatureException e) {
                    throw new UnsupportedFeatureException("Grouping count() of groups by " + result.getExpression() + ": " + e.getMessage());
                }
                continue;
            }
            if (kind != SumAggregationResult.class && kind != MinAggregationResult.class && kind != MaxAggregationResult.class
                && kind != AverageAggregationResult.class && kind != XorAggregationResult.class
                && kind != StandardDeviationAggregationResult.class && kind != QuantileAggregationResult.class)
                throw new UnsupportedFeatureException("Grouping aggregator " + kind.getSimpleName() + " is not supported by this content engine: " +
                                                      "only count() (of documents and of groups), summary(), sum, avg, min, max, xor, stddev and quantiles");
            flattened[i] = compiler.flattened(result.getExpression());
            values[i] = flattened[i] != null ? flattened[i] : compiler.compile(result.getExpression());
            if (values[i].type() == GroupValue.Type.RAW && kind != XorAggregationResult.class && kind != MinAggregationResult.class && kind != MaxAggregationResult.class)
                throw new UnsupportedFeatureException("Grouping aggregator " + kind.getSimpleName() + " of a raw value (cat, md5, uca) is not supported by this content engine: only xor, min and max");
        }
        for (ExpressionNode orderBy : prototype.getOrderByExpressions()) checkOrderBy(orderBy);
    }

    /** The accumulators of a group of this level, writing into its aggregation results (clones of the prototype's). */
    Accumulator[] bind(Group group) {
        List<AggregationResult> results = group.getAggregationResults();
        Accumulator[] accumulators = new Accumulator[results.size()];
        for (int i = 0; i < accumulators.length; i++) {
            AggregationResult result = results.get(i);
            accumulators[i] = result instanceof ExpressionCountAggregationResult groups ? new Accumulator.GroupCount(groups, groupIds[i])
                                                                                    : accumulator(result, values[i], flattened[i] != null);
            if (flattened[i] != null) accumulators[i] = new Accumulator.Flattened(accumulators[i], flattened[i]);
        }
        return accumulators;
    }

    /**
     * Gives the results of a group that collected nothing here (a group created in a pass that does not collect its
     * level yet, or a frozen one) the starting values proton's aggregators prepare, where the request left them
     * empty: a sum of 0, a min at its type's greatest value, a max at its least, in the expression's type. The
     * container merges later passes into these.
     */
    void prepare(Group group) {
        List<AggregationResult> results = group.getAggregationResults();
        for (int i = 0; i < results.size(); i++) {
            AggregationResult result = results.get(i);
            if (result instanceof SumAggregationResult sum && sum.getSum() == null)
                sum.setSum(values[i].type() == GroupValue.Type.INTEGER ? new IntegerResultNode(0) : new FloatResultNode(0));
            else if (result instanceof MinAggregationResult min && min.getMin() == null)
                min.setMin(Accumulator.Extreme.start(values[i].type(), true));
            else if (result instanceof MaxAggregationResult max && max.getMax() == null)
                max.setMax(Accumulator.Extreme.start(values[i].type(), false));
            else if (result instanceof AverageAggregationResult average && average.getSum() == null)
                average.setSum(new FloatResultNode(0));
        }
    }

    private Accumulator accumulator(AggregationResult result, GroupValue value, boolean flattened) {
        if (result instanceof CountAggregationResult count) return new Accumulator.Count(count);
        if (result instanceof HitsAggregationResult hits) return new Accumulator.Hits(hits, index, distributionKey);
        if (result instanceof SumAggregationResult sum) return new Accumulator.Sum(sum, value);
        if (result instanceof MinAggregationResult min) return new Accumulator.Extreme(min, null, value);
        if (result instanceof MaxAggregationResult max) return new Accumulator.Extreme(null, max, value);
        if (result instanceof AverageAggregationResult average) return new Accumulator.Average(average, value, flattened);
        if (result instanceof XorAggregationResult xor) return new Accumulator.Xor(xor, value);
        if (result instanceof StandardDeviationAggregationResult deviation) return new Accumulator.StandardDeviation(deviation, value, flattened);
        if (result instanceof QuantileAggregationResult quantiles) return new Accumulator.Quantiles(quantiles, value);
        throw new IllegalStateException("Unexpected " + result.getClass().getSimpleName());
    }

    /** Order-by expressions run in searchlib's Java (Group.postMerge), which computes arithmetic over aggregates. */
    private static void checkOrderBy(ExpressionNode node) {
        if (node instanceof AggregationRefNode || node instanceof ConstantNode) return;
        if (node instanceof MultiArgFunctionNode function && isArithmetic(function)) {
            for (int i = 0; i < function.getNumArgs(); i++) checkOrderBy(function.getArg(i));
            return;
        }
        throw new UnsupportedFeatureException("Grouping order by " + node.getClass().getSimpleName() + " is not supported by this content engine: " +
                                              "only by aggregates and arithmetic on them");
    }

    private static boolean isArithmetic(MultiArgFunctionNode function) {
        return function instanceof com.yahoo.searchlib.expression.AddFunctionNode
               || function instanceof com.yahoo.searchlib.expression.MultiplyFunctionNode
               || function instanceof com.yahoo.searchlib.expression.DivideFunctionNode
               || function instanceof com.yahoo.searchlib.expression.ModuloFunctionNode
               || function instanceof com.yahoo.searchlib.expression.NegateFunctionNode;
    }

}
