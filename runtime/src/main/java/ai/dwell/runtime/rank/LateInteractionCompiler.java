package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.searchlib.rankingexpression.rule.Operator;
import com.yahoo.searchlib.rankingexpression.rule.OperationNode;
import com.yahoo.searchlib.rankingexpression.rule.ReferenceNode;
import com.yahoo.searchlib.rankingexpression.rule.TensorFunctionNode;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.TypeResolver;
import com.yahoo.tensor.functions.Join;
import com.yahoo.tensor.functions.MapSubspaces;
import com.yahoo.tensor.functions.Reduce;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Compiles late interaction (ColBERT's max-sim) into {@link MaxSimNode}s: reduce(query(qt) * d, sum, x) of a query
 * tensor(qt{},x[n]) and document vectors d of other mapped dimensions (a mixed tensor attribute, or unpack_bits of an
 * int8 one), then reduce(·, max, ...) over all the document's mapped dimensions, or over the inner one of two and
 * summed over the query's dimension. Gives empty for other shapes, which the caller evaluates with searchlib's evaluator.
 */
final class LateInteractionCompiler {

    private final Function<ExpressionNode, Node> compile;
    private final Function<ExpressionNode, TensorType> types;
    private final Consumer<Memo> memos;
    private final BiFunction<TensorFunctionNode, Boolean, List<String>> reduceParts; // (node, true): [aggregator]; false: dimensions

    LateInteractionCompiler(Function<ExpressionNode, Node> compile, Function<ExpressionNode, TensorType> types, Consumer<Memo> memos,
                            BiFunction<TensorFunctionNode, Boolean, List<String>> reduceParts) {
        this.compile = compile;
        this.types = types;
        this.memos = memos;
        this.reduceParts = reduceParts;
    }

    /** A compiled form of this reduce, or empty. */
    Optional<Node> reduce(TensorFunctionNode node) {
        if ( ! (node.function() instanceof Reduce<?>)) return Optional.empty();
        List<String> aggregator = reduceParts.apply(node, true), dimensions = reduceParts.apply(node, false);
        if (aggregator == null || dimensions == null || dimensions.isEmpty()) return Optional.empty();
        ExpressionNode argument = node.children().get(0);
        if (aggregator.get(0).equals("sum") && dimensions.size() == 1) {
            Optional<MaxSimNode.Dots> dots = dots(node, argument, dimensions.get(0));
            if (dots.isPresent()) return Optional.of(dots.get());
            Optional<Node> grouped = sumOfGroupMax(node, argument, dimensions.get(0));
            if (grouped.isPresent()) return grouped;
        }
        if (aggregator.get(0).equals("max") && isReduce(argument) && compile.apply(argument) instanceof MaxSimNode.Dots dots
            && dimensions.size() == dots.rows().mappedDimensions().size() && dimensions.containsAll(dots.rows().mappedDimensions())) {
            TensorType type = types.apply(node);
            if (type.rank() != 1 || type.dimension(dots.queryDimension()).isEmpty()) return Optional.empty();
            return Optional.of(register(new MaxSimNode.MaxOverRows(type, dots)));
        }
        return Optional.empty();
    }

    /** reduce(reduce(dots, max, inner), sum, qt) where dots has two document dimensions: the outer kept. */
    private Optional<Node> sumOfGroupMax(TensorFunctionNode node, ExpressionNode argument, String summed) {
        if ( ! (argument instanceof TensorFunctionNode inner) || ! (inner.function() instanceof Reduce<?>)) return Optional.empty();
        List<String> aggregator = reduceParts.apply(inner, true), dimensions = reduceParts.apply(inner, false);
        if (aggregator == null || ! aggregator.get(0).equals("max") || dimensions == null || dimensions.size() != 1) return Optional.empty();
        if ( ! isReduce(inner.children().get(0))) return Optional.empty();
        if ( ! (compile.apply(inner.children().get(0)) instanceof MaxSimNode.Dots dots) || ! dots.queryDimension().equals(summed)) return Optional.empty();
        List<String> mapped = dots.rows().mappedDimensions();
        if (mapped.size() != 2 || ! mapped.contains(dimensions.get(0))) return Optional.empty();
        int kept = 1 - mapped.indexOf(dimensions.get(0));
        TensorType type = types.apply(node);
        if (type.rank() != 1 || ! type.dimensions().get(0).name().equals(mapped.get(kept))) return Optional.empty();
        return Optional.of(register(new MaxSimNode.SumOfGroupMax(type, dots, kept)));
    }

    /** reduce(q * d, sum, x) or reduce(join(q, d, f(a,b)(a * b)), sum, x), either order, as dot products. */
    private Optional<MaxSimNode.Dots> dots(TensorFunctionNode node, ExpressionNode argument, String summed) {
        List<ExpressionNode> operands = multiplied(argument);
        if (operands == null) return Optional.empty();
        for (int first = 0; first < 2; first++) {
            Node query = compile.apply(operands.get(first));
            if ( ! (query instanceof ConstantNode constant) || ! query.isUniform()) continue;
            TensorType queryType = query.type();
            if (queryType.rank() != 2 || queryType.mappedSubtype().rank() != 1 || queryType.indexedSubtype().rank() != 1) return Optional.empty();
            TensorType.Dimension vector = queryType.indexedSubtype().dimensions().get(0);
            if ( ! vector.name().equals(summed) || vector.size().isEmpty()) return Optional.empty();
            TokenRows rows = rows(operands.get(1 - first));
            if (rows == null || ! rows.indexedDimension().equals(summed) || rows.size() != vector.size().get().intValue()) return Optional.empty();
            String queryDimension = queryType.mappedSubtype().dimensions().get(0).name();
            if (rows.mappedDimensions().contains(queryDimension)) return Optional.empty();
            TensorType type = types.apply(node);
            if ( ! type.equals(TypeResolver.reduce(TypeResolver.join(queryType, rows.type()), List.of(summed)))) return Optional.empty();
            return Optional.of(register(queryVectors(type, rows, queryDimension, constant.tensor(), vector.name())));
        }
        return Optional.empty();
    }

    private static MaxSimNode.Dots queryVectors(TensorType type, TokenRows rows, String queryDimension, Tensor query, String vectorDimension) {
        Map<String, double[]> vectors = new LinkedHashMap<>();
        int mapped = query.type().indexOfDimension(queryDimension).get(), indexed = query.type().indexOfDimension(vectorDimension).get();
        for (Iterator<Tensor.Cell> cells = query.cellIterator(); cells.hasNext(); ) {
            Tensor.Cell cell = cells.next();
            TensorAddress address = cell.getKey();
            vectors.computeIfAbsent(address.label(mapped), label -> new double[rows.size()])[(int) address.numericLabel(indexed)] = cell.getValue();
        }
        double[] cells = new double[vectors.size() * rows.size()];
        int j = 0;
        for (double[] vector : vectors.values()) System.arraycopy(vector, 0, cells, j++ * rows.size(), rows.size());
        return new MaxSimNode.Dots(type, rows, queryDimension, vectors.keySet().toArray(new String[0]), cells);
    }

    /** The document's vectors of an operand: a mixed tensor attribute, unpack_bits of one, or compiled subspaces; null if another. */
    private TokenRows rows(ExpressionNode operand) {
        if (operand instanceof TensorFunctionNode map && map.function() instanceof MapSubspaces<?>
            && map.children().get(0) instanceof ReferenceNode reference
            && compile.apply(reference) instanceof TensorAttributeNode attribute && attribute.type().valueType() == TensorType.Value.INT8
            && TokenRows.accepts(attribute.type())) {
            String text = map.toString();
            for (TensorType.Value cellType : TensorType.Value.values()) {
                for (String endian : List.of("big", "little")) {
                    if ( ! text.equals(MixedTensorCompiler.unpackBitsAsWritten(reference, attribute.type(), cellType, endian))) continue;
                    TensorType type = types.apply(map);
                    if ( ! TokenRows.accepts(type)) return null;
                    return new TokenRows.OfAttribute(type, attribute, endian.equals("big") ? TokenRows.OfAttribute.Unpack.BIG_ENDIAN
                                                                                           : TokenRows.OfAttribute.Unpack.LITTLE_ENDIAN);
                }
            }
            return null;
        }
        Node node = compile.apply(operand);
        if (node instanceof SubspaceNode subspaces && TokenRows.accepts(subspaces.type())) return new TokenRows.OfSubspaces(subspaces);
        if (node instanceof TensorAttributeNode attribute && TokenRows.accepts(attribute.type()))
            return new TokenRows.OfAttribute(attribute.type(), attribute, TokenRows.OfAttribute.Unpack.NONE);
        return null;
    }

    /** Whether the expression is a reduce (only those are compiled again here to see whether they are dot products). */
    private static boolean isReduce(ExpressionNode expression) {
        return expression instanceof TensorFunctionNode node && node.function() instanceof Reduce<?>;
    }

    /** The two operands of a multiplication, or null. */
    private static List<ExpressionNode> multiplied(ExpressionNode expression) {
        if (expression instanceof OperationNode operation && operation.operators().size() == 1 && operation.operators().get(0) == Operator.multiply)
            return new ArrayList<>(operation.children());
        if (expression instanceof TensorFunctionNode node && node.function() instanceof Join<?> join && node.children().size() == 2
            && join.combinator().applyAsDouble(2, 3) == 6 && join.combinator().applyAsDouble(1, 1) == 1)
            return new ArrayList<>(node.children());
        return null;
    }

    private <T extends Node & Memo> T register(T node) {
        memos.accept(node);
        return node;
    }

}
