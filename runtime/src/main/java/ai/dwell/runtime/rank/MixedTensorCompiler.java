package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiVectorIndex;
import com.yahoo.searchlib.rankingexpression.RankingExpression;
import com.yahoo.searchlib.rankingexpression.evaluation.MapTypeContext;
import com.yahoo.searchlib.rankingexpression.parser.ParseException;
import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.searchlib.rankingexpression.rule.Function;
import com.yahoo.searchlib.rankingexpression.rule.FunctionNode;
import com.yahoo.searchlib.rankingexpression.rule.Operator;
import com.yahoo.searchlib.rankingexpression.rule.ReferenceNode;
import com.yahoo.searchlib.rankingexpression.rule.SerializationContext;
import com.yahoo.searchlib.rankingexpression.rule.TensorFunctionNode;
import com.yahoo.searchlib.rankingexpression.rule.UnpackBitsNode;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.TypeResolver;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleBinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compiles the expressions over a mixed tensor attribute of one mapped and one indexed dimension that have a
 * {@link SubspaceNode} form: unpack_bits of a tensor&lt;int8&gt;(m{},x[n]) attribute, arithmetic of such values with
 * numbers and with a dense vector of the indexed dimension (a query tensor), functions of their cells, reduce over the
 * indexed dimension or over all, and top(n, ·) of a tensor(m{}). Each method gives empty where the shape is another,
 * and the caller then evaluates the expression with searchlib's evaluator: never an approximation.
 */
final class MixedTensorCompiler {

    private static final Pattern TOP = Pattern.compile("join\\((.*), filter_subspaces\\(join\\(cell_order\\((.*), (max|min)\\), (\\d+), "
                                                       + "f\\(a,b\\)\\(a < b\\)\\), f\\(s\\)\\(s\\)\\), f\\(a,b\\)\\(a \\* b\\)\\)");

    private final java.util.function.Function<ExpressionNode, Node> compile;
    private final java.util.function.Function<ExpressionNode, TensorType> types;
    private final java.util.function.Consumer<Memo> memos;

    /**
     * @param compile compiles a sub-expression
     * @param types the type of an expression, as searchlib resolves it with the compiled features' types
     * @param memos registers a node that remembers its document
     */
    MixedTensorCompiler(java.util.function.Function<ExpressionNode, Node> compile, java.util.function.Function<ExpressionNode, TensorType> types,
                        java.util.function.Consumer<Memo> memos) {
        this.compile = compile;
        this.types = types;
        this.memos = memos;
    }

    private <T extends SubspaceNode> Optional<Node> memo(T node) {
        memos.accept(node);
        return Optional.of(node);
    }

    /** map_subspaces(attribute(name), ...) as the config model writes unpack_bits(attribute(name), cellType, endian). */
    Optional<Node> mapSubspaces(TensorFunctionNode node) {
        ExpressionNode inputExpression = node.children().get(0);
        if ( ! (inputExpression instanceof ReferenceNode reference)) return Optional.empty();
        Node input = compile.apply(inputExpression);
        if ( ! (input instanceof TensorAttributeNode attribute) || attribute.multiVectors().isEmpty()) return Optional.empty();
        MultiVectorIndex vectors = attribute.multiVectors().get();
        TensorType inputType = input.type();
        if (inputType.valueType() != TensorType.Value.INT8) return Optional.empty();
        String text = node.toString();
        for (TensorType.Value cellType : TensorType.Value.values()) {
            for (String endian : List.of("big", "little")) {
                if ( ! text.equals(unpackBitsAsWritten(reference, inputType, cellType, endian))) continue;
                TensorType type = types.apply(node);
                if ( ! SubspaceNode.isSubspaces(type) || type.rank() != 2) return Optional.empty();
                return memo(new SubspaceNode.UnpackBits(type, vectors, endian.equals("big")));
            }
        }
        return Optional.empty();
    }

    /** The expansion of unpack_bits(input, cellType, endian) as the config model writes it, parsed and written again as this runtime reads it. */
    static String unpackBitsAsWritten(ReferenceNode input, TensorType inputType, TensorType.Value cellType, String endian) {
        MapTypeContext context = new MapTypeContext();
        context.setType(input.reference(), inputType);
        String written = new UnpackBitsNode(input, cellType, endian).toString(new SerializationContext(List.of(), Map.of(), context)).toString();
        try {
            return new RankingExpression(written).getRoot().toString();
        }
        catch (ParseException | IllegalArgumentException e) {
            return null;
        }
    }

    /** top(n, t) of a compiled tensor(m{}), as the config model writes it (see {@link SubspaceNode.Top}). */
    Optional<Node> top(TensorFunctionNode node) {
        Matcher matcher = TOP.matcher(node.toString());
        if ( ! matcher.matches()) return Optional.empty();
        String argument = node.children().get(0).toString();
        if ( ! matcher.group(1).equals(argument) || ! matcher.group(2).equals(argument)) return Optional.empty();
        if ( ! (compile.apply(node.children().get(0)) instanceof SubspaceNode input) || input.size() != 1 || input.type().rank() != 1)
            return Optional.empty();
        int n;
        try {
            n = Integer.parseInt(matcher.group(4));
        }
        catch (NumberFormatException e) {
            return Optional.empty();
        }
        TensorType type = types.apply(node);
        if ( ! type.dimensions().equals(input.type().dimensions())) return Optional.empty();
        return memo(new SubspaceNode.Top(type, input, n, matcher.group(3).equals("max")));
    }

    /** reduce(t, aggregator, dimensions) of compiled subspaces t: over the indexed dimension, or over all (a number). */
    Optional<Node> reduce(TensorFunctionNode node, SubspaceNode input, String aggregatorName, List<String> dimensions) {
        Optional<SubspaceNode.Aggregator> aggregator = SubspaceNode.Aggregator.of(aggregatorName);
        if (aggregator.isEmpty()) return Optional.empty();
        if (dimensions.isEmpty() || dimensions.size() == input.type().rank() && input.type().dimensionNames().containsAll(dimensions))
            return Optional.of(new SubspaceNode.ReduceAll(input, aggregator.get()));
        if (dimensions.size() == 1 && dimensions.get(0).equals(input.indexedDimension())) {
            TensorType type = types.apply(node);
            if ( ! SubspaceNode.isSubspaces(type) || type.rank() != 1) return Optional.empty();
            return memo(new SubspaceNode.ReduceIndexed(type, input, aggregator.get()));
        }
        return Optional.empty();
    }

    /** f(t) or f(t, number) of compiled subspaces t, cell by cell, for the functions Java's evaluator applies so. */
    Optional<Node> function(FunctionNode node, List<Node> arguments) {
        if ( ! (arguments.get(0) instanceof SubspaceNode input)) return Optional.empty();
        Function f = node.getFunction();
        TensorType type = types.apply(node);
        if ( ! type.dimensions().equals(input.type().dimensions())) return Optional.empty();
        if (arguments.size() == 1 && f.arity() == 1) return memo(new SubspaceNode.Map(type, input, x -> f.evaluate(x, 0.0)));
        if (arguments.size() == 2 && arguments.get(1).type().rank() == 0 && (f == Function.pow || f == Function.min || f == Function.max))
            return memo(new SubspaceNode.Binary(type, input, arguments.get(1), f::evaluate));
        return Optional.empty();
    }

    /**
     * An arithmetic expression (+ - * /) of compiled subspaces of one layout, numbers, and dense vectors constant for the
     * query over the subspaces' indexed dimension, applied in precedence order as searchlib's OperationNode does.
     */
    Optional<Node> operation(List<Node> children, List<Operator> operators) {
        if (children.stream().noneMatch(child -> child instanceof SubspaceNode)) return Optional.empty();
        Deque<Node> values = new ArrayDeque<>();
        Deque<Operator> pending = new ArrayDeque<>();
        values.push(children.get(0));
        for (int i = 0; i < operators.size(); i++) {
            Operator op = operators.get(i);
            while ( ! pending.isEmpty() && ! op.hasPrecedenceOver(pending.peek()))
                if ( ! apply(values, pending)) return Optional.empty();
            pending.push(op);
            values.push(children.get(i + 1));
        }
        while ( ! pending.isEmpty()) if ( ! apply(values, pending)) return Optional.empty();
        Node result = values.pop();
        return result instanceof SubspaceNode ? Optional.of(result) : Optional.empty();
    }

    private boolean apply(Deque<Node> values, Deque<Operator> operators) {
        Node right = values.pop(), left = values.pop();
        Operator operator = operators.pop();
        DoubleBinaryOperator f = switch (operator) {
            case plus -> Double::sum;
            case minus -> (a, b) -> a - b;
            case multiply -> (a, b) -> a * b;
            case divide -> (a, b) -> a / b;
            default -> null;
        };
        Node result = f == null ? null : join(left, right, f);
        if (result == null) return false;
        values.push(result);
        return true;
    }

    /** The compiled join of two operands, or null where it has no compiled form. */
    private Node join(Node left, Node right, DoubleBinaryOperator f) {
        if (left.type().rank() == 0 && right.type().rank() == 0) return new ScalarNode.Binary(left, right, f);
        SubspaceNode leftCells = left instanceof SubspaceNode s ? s : null, rightCells = right instanceof SubspaceNode s ? s : null;
        if (leftCells != null && rightCells != null) {
            if (leftCells.layout() != rightCells.layout() || ! leftCells.type().dimensions().equals(rightCells.type().dimensions())) return null;
            return register(new SubspaceNode.Binary(joinedType(leftCells.type(), rightCells.type()), left, right, f));
        }
        SubspaceNode cells = leftCells != null ? leftCells : rightCells;
        if (cells == null) return null;
        Node other = cells == left ? right : left;
        if (other.type().rank() == 0)
            return register(new SubspaceNode.Binary(joinedType(cells.type(), other.type()), left, right, f));
        double[] vector = vectorOver(other, cells);
        if (vector == null) return null;
        return register(new SubspaceNode.JoinVector(joinedType(cells.type(), other.type()), cells, vector, other == left, f));
    }

    private SubspaceNode register(SubspaceNode node) {
        memos.accept(node);
        return node;
    }

    /** The cells of a query constant that is a vector over the subspaces' indexed dimension, or null. */
    private static double[] vectorOver(Node node, SubspaceNode cells) {
        if ( ! node.isUniform() || ! (node instanceof ConstantNode constant) || cells.indexedDimension() == null) return null;
        TensorType type = node.type();
        if (type.rank() != 1 || ! type.dimensions().get(0).name().equals(cells.indexedDimension())
            || type.dimensions().get(0).size().orElse(-1L) != cells.size()) return null;
        Tensor tensor = constant.tensor(0);
        if ( ! (tensor instanceof IndexedTensor indexed)) return null;
        double[] vector = new double[cells.size()];
        for (int i = 0; i < vector.length; i++) vector[i] = indexed.get(i);
        return vector;
    }

    /** The type of a join, as Vespa resolves it. */
    private static TensorType joinedType(TensorType a, TensorType b) { return TypeResolver.join(a, b); }

}
