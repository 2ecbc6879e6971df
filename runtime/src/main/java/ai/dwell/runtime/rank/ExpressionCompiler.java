package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.ImportedAttribute;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.StringAttribute;
import ai.dwell.runtime.index.TensorAttribute;
import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.NearestNeighborTerm;
import ai.dwell.runtime.match.PredicateTerm;
import ai.dwell.runtime.match.QueryTerm;
import ai.dwell.runtime.match.RankTerm;
import com.yahoo.searchlib.rankingexpression.evaluation.DoubleValue;
import com.yahoo.searchlib.rankingexpression.evaluation.MapContext;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.searchlib.rankingexpression.rule.EmbracedNode;
import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.searchlib.rankingexpression.rule.FunctionNode;
import com.yahoo.searchlib.rankingexpression.rule.IfNode;
import com.yahoo.searchlib.rankingexpression.rule.NegativeNode;
import com.yahoo.searchlib.rankingexpression.rule.NotNode;
import com.yahoo.searchlib.rankingexpression.rule.OperationNode;
import com.yahoo.searchlib.rankingexpression.rule.Operator;
import com.yahoo.searchlib.rankingexpression.rule.ReferenceNode;
import com.yahoo.searchlib.rankingexpression.rule.TensorFunctionNode;
import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.functions.DynamicTensor;
import com.yahoo.tensor.functions.Generate;
import com.yahoo.tensor.functions.Join;
import com.yahoo.tensor.functions.MapSubspaces;
import com.yahoo.tensor.functions.Reduce;
import com.yahoo.tensor.functions.TensorFunction;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleBinaryOperator;

/**
 * Compiles the expressions of a rank profile for one query into {@link Node}s: everything that depends only
 * on the query (query(), constant(), vespa.now, and ifs and arithmetic on them) is folded to constants once
 * (now from the clock is not: {@link #startQuery} sets it for each query the program serves);
 * numbers become unboxed operator trees reading attribute columns; the dense layers of a network
 * (tensor(x[n]):[...], xw_plus_b as join/reduce/join, elementwise functions, sum) become float loops.
 * Expressions over a mixed tensor of one mapped and one indexed dimension (unpack_bits, joins with a query vector,
 * reduce, top) become loops over its subspaces ({@link MixedTensorCompiler}).
 * Other tensor expressions are evaluated by searchlib's evaluator ({@link GenericNode}).
 * A feature this engine does not know throws {@link UnsupportedFeatureException} naming it.
 */
final class ExpressionCompiler {

    private final RankProfile profile;
    private final RankAssets assets;
    private final DocumentIndex index;

    /** The index the program ranks. */
    DocumentIndex index() { return index; }
    private final List<QueryTerm> terms;
    private final List<NearestNeighborTerm> nearestNeighbors;
    private final List<RankTerm> rankTerms;
    private final List<PredicateTerm> predicates;
    private final QueryProperties query;
    private final Map<String, Node> features = new HashMap<>();
    private final Set<String> compiling = new HashSet<>();
    private final Map<String, OnnxNode.Run> onnxRuns = new HashMap<>();
    private final ScalarNode.FirstPhase firstPhase = new ScalarNode.FirstPhase();
    private boolean compilingFirstPhase = false;
    private boolean readsFirstPhase = false;
    /** The nodes of query(name) features that the profile does not declare in inputs, with their names. */
    private final Map<Node, String> undeclaredQueries = new IdentityHashMap<>();
    /** Whether a compiled node depends on the query's terms (and the index's term statistics at compile time). */
    private boolean readsTerms = false;
    /** now from the clock, set for each query; null while no compiled node reads the clock's now. */
    private ScalarNode.Now clock;
    /** The nodes that remember a document's value, which forget it at the start of each query. */
    private final List<Memo> memos = new ArrayList<>();
    /** The compiled forms of expressions over mixed tensors of one mapped and one indexed dimension. */
    private final MixedTensorCompiler mixedTensors = new MixedTensorCompiler(this::compile, this::typeOf, memos::add);
    /** The compiled forms of late interaction (max-sim) of a query tensor with a document's token vectors. */
    private final LateInteractionCompiler lateInteraction = new LateInteractionCompiler(this::compile, this::typeOf, memos::add, (node, aggregator) -> {
        if ( ! aggregator) return reducedDimensions(node);
        String[] tail = reduceTail(node);
        return tail == null ? null : List.of(tail[0].trim());
    });

    ExpressionCompiler(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms, QueryProperties query) {
        this(profile, assets, index, terms, List.of(), query);
    }

    ExpressionCompiler(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                       List<NearestNeighborTerm> nearestNeighbors, QueryProperties query) {
        this(profile, assets, index, terms, nearestNeighbors, List.of(), query);
    }

    ExpressionCompiler(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                       List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms, QueryProperties query) {
        this(profile, assets, index, terms, nearestNeighbors, rankTerms, List.of(), query);
    }

    ExpressionCompiler(RankProfile profile, RankAssets assets, DocumentIndex index, List<QueryTerm> terms,
                       List<NearestNeighborTerm> nearestNeighbors, List<RankTerm> rankTerms, List<PredicateTerm> predicates, QueryProperties query) {
        this.predicates = predicates;
        this.profile = profile;
        this.assets = assets;
        this.index = index;
        this.terms = terms;
        this.nearestNeighbors = nearestNeighbors;
        this.rankTerms = rankTerms;
        this.query = query;
    }

    /** The compiled node of a feature, by its full name, e.g. "attribute(upvotes)" or "rankingExpression(nn_input)". */
    Node feature(String name) {
        Node node = features.get(name);
        if (node != null) return node;
        if ( ! compiling.add(name)) throw new UnsupportedFeatureException("Rank profile '" + profile.name() + "': feature '" + name + "' references itself");
        try {
            node = resolve(FeatureName.parse(name));
        }
        finally {
            compiling.remove(name);
        }
        features.put(name, node);
        return node;
    }

    Node compile(ExpressionNode expression) {
        if (expression instanceof com.yahoo.searchlib.rankingexpression.rule.ConstantNode constant) return ConstantNode.of(constant.getValue());
        if (expression instanceof EmbracedNode embraced) return compile(embraced.getValue());
        if (expression instanceof ReferenceNode reference) return feature(reference.reference().isIdentifier() ? reference.getName() : reference.toString());
        if (expression instanceof IfNode ifNode) return compileIf(ifNode);
        if (expression instanceof OperationNode operation) return compileOperation(operation);
        if (expression instanceof FunctionNode function) return compileFunction(function);
        if (expression instanceof NegativeNode negative) {
            Node value = compile(negative.getValue());
            if (value.isConstant()) return fold(expression);
            if (value.type().rank() == 0) return new MathNode(value, MathNode.Kind.NEGATE);
            return generic(expression);
        }
        if (expression instanceof NotNode not) {
            Node value = compile(not.getValue());
            if (value.isConstant()) return fold(expression);
            if (value.type().rank() == 0) return new ScalarNode.Unary(value, x -> x == 0 ? 1 : 0);
            return generic(expression);
        }
        if (expression instanceof TensorFunctionNode tensorFunction) return compileTensorFunction(tensorFunction);
        return foldOrGeneric(expression);
    }

    private Node resolve(FeatureName feature) {
        String name = feature.name();
        if (name.equals("rankingExpression")) return function(feature.argument(), feature);
        if (feature.arguments().isEmpty() && feature.output() == null && profile.functions().containsKey(name)) return function(name, feature);
        return switch (name) {
            case "attribute" -> attribute(feature);
            case "query" -> queryFeature(feature.argument());
            case "constant" -> ConstantNode.of(new TensorValue(assets.constant(feature.argument())
                    .orElseThrow(() -> unsupported("constant(" + feature.argument() + ") is not defined"))));
            case "value" -> new ScalarNode.Constant(Double.parseDouble(feature.argument()));
            case "now" -> now();
            case "age" -> age(feature.argument());
            case "freshness" -> freshness(feature);
            case "bm25" -> bm25(feature);
            case "elementwise" -> elementwise(feature);
            case "elementSimilarity" -> elementSimilarity(feature);
            case "elementCompleteness" -> elementCompleteness(feature);
            case "nativeRank", "nativeFieldMatch", "nativeProximity", "nativeAttributeMatch" -> nativeFeature(feature);
            case "subqueries" -> termsRead(SubqueriesFeature.of(feature, index, predicates));
            case "closeness", "distance" -> termsRead(NearestNeighborFeatures.of(feature, index, nearestNeighbors, query));
            case "closest" -> termsRead(NearestNeighborFeatures.closest(feature, index, nearestNeighbors, query));
            case "firstPhase" -> {
                if (compilingFirstPhase) throw unsupported("firstPhase cannot be used in the first-phase expression: it is that expression's value");
                readsFirstPhase = true;
                yield firstPhase;
            }
            case "onnx", "onnxModel" -> onnx(feature);
            case "random" -> random(feature);
            case "attributeMatch" -> attributeMatch(feature);
            case "rawScore" -> rawScore(feature);
            case "itemRawScore" -> itemRawScore(feature);
            case "dotProduct" -> dotProduct(feature);
            case "fieldMatch" -> fieldMatch(feature);
            case "foreach" -> foreach(feature);
            case "textSimilarity" -> textSimilarity(feature);
            case "queryTermCount" -> termsRead(TermFeatures.queryTermCount(feature, terms()));
            case "term" -> termsRead(TermFeatures.term(feature, terms()));
            case "matches" -> termsRead(TermFeatures.matches(feature, index, terms()));
            case "fieldTermMatch" -> termsRead(TermFieldFeatures.fieldTermMatch(feature, index, terms()));
            case "fieldLength" -> termsRead(TermFieldFeatures.fieldLength(feature, index, terms()));
            case "matchCount" -> termsRead(TermFieldFeatures.matchCount(feature, index, terms()));
            // the index's statistics change with every write: read when the query's program is compiled, as the terms' are
            case "averageFieldLength" -> termsRead(IndexStatisticsFeatures.averageFieldLength(feature, index));
            case "num_docs_indexed" -> termsRead(IndexStatisticsFeatures.numDocsIndexed(feature, index));
            case "queryTermDocumentFrequency" -> termsRead(IndexStatisticsFeatures.queryTermDocumentFrequency(feature, index, rankTerms, query));
            default -> throw unsupported(feature.arguments().isEmpty() && feature.output() == null
                                         ? "'" + name + "' is neither a function of the profile nor a feature this content engine supports"
                                         : "feature '" + feature + "' is not supported by this content engine");
        };
    }

    private Node bm25(FeatureName feature) {
        TextIndex text = termsRead(textIndex(feature.argument()));
        String base = "bm25(" + feature.argument() + ")";
        return new TextFeatures.Bm25(text, terms(), query, doubleProperty(base + ".k1", 1.2), doubleProperty(base + ".b", 0.75),
                                     doubleProperty(base + ".averageFieldLength", text.averageFieldLength()));
    }

    /**
     * elementwise(bm25(field),dimension[,cellType]) (see {@link ElementwiseBm25}); proton (8.700.24) has bm25 as the only
     * feature with elementwise support.
     */
    private Node elementwise(FeatureName feature) {
        List<String> arguments = feature.arguments();
        if (arguments.size() < 2 || arguments.size() > 3 || feature.output() != null && ! feature.output().equals("score"))
            throw unsupported("feature '" + feature + "': elementwise takes a feature, a dimension name and optionally a cell type");
        FeatureName nested = FeatureName.parse(arguments.get(0));
        if ( ! nested.name().equals("bm25") || nested.output() != null)
            throw unsupported("feature '" + feature + "': '" + nested.name() + "' is not a feature with elementwise support (bm25 is)");
        if (nested.arguments().size() != 1) throw unsupported("feature '" + feature + "': bm25 takes an index field");
        String dimension = arguments.get(1).trim();
        if ( ! dimension.matches("[A-Za-z_][A-Za-z0-9_]*"))
            throw unsupported("feature '" + feature + "': '" + dimension + "' is not a dimension name");
        String cellTypeName = arguments.size() == 3 ? arguments.get(2).trim() : "double";
        TensorType.Value cellType = switch (cellTypeName) {
            case "double" -> TensorType.Value.DOUBLE;
            case "float" -> TensorType.Value.FLOAT;
            case "bfloat16" -> TensorType.Value.BFLOAT16;
            case "int8" -> TensorType.Value.INT8;
            default -> throw unsupported("feature '" + feature + "': '" + cellTypeName + "' is not a valid tensor cell type");
        };
        TextIndex text = termsRead(textIndex(nested.argument()));
        String base = "bm25(" + nested.argument() + ")";
        String own = "elementwise(" + base + "," + dimension + "," + cellTypeName + ")";
        TensorType type = new TensorType.Builder(cellType).mapped(dimension).build();
        return memo(new ElementwiseBm25(type, text, terms(), query,
                                        bm25Property(own, base, "k1", 1.2), bm25Property(own, base, "b", 0.75),
                                        bm25Property(own, base, "averageElementLength", text.averageElementLength())));
    }

    /** A bm25 parameter of elementwise bm25: the elementwise feature's own property, else bm25(field)'s, else the default. */
    private double bm25Property(String own, String base, String name, double fallback) {
        return doubleProperty(own + "." + name, doubleProperty(base + "." + name, fallback));
    }

    private final Map<String, ElementSimilarityFeature.Computer> elementSimilarities = new HashMap<>();

    /** elementSimilarity(field) and the outputs the profile defines (see {@link ElementSimilarityFeature}), of an index field. */
    private Node elementSimilarity(FeatureName feature) {
        String field = feature.argument();
        index.index(field).orElseThrow(() -> unsupported("feature '" + feature + "': '" + field + "' is not an index field of '" + index.name() + "'"));
        readsTerms = true;
        ElementSimilarityFeature.Computer computer = elementSimilarities.computeIfAbsent(field, f -> memo(
                new ElementSimilarityFeature.Computer(ElementSimilarityFeature.outputs(profile, "elementSimilarity(" + f + ")"), f, terms())));
        int output = computer.output(feature.output(), feature.toString());
        return new ScalarNode.OfDocument(lid -> computer.value(lid, output));
    }

    private final Map<String, ElementCompletenessFeature.Computer> elementCompletenesses = new HashMap<>();

    /** elementCompleteness(field) and its outputs (see {@link ElementCompletenessFeature}), of an index field. */
    private Node elementCompleteness(FeatureName feature) {
        if (feature.arguments().size() != 1) throw unsupported("feature '" + feature + "': elementCompleteness takes an index field");
        String field = feature.argument();
        index.index(field).orElseThrow(() -> unsupported("feature '" + feature + "': '" + field + "' is not an index field of '" + index.name() + "'"));
        ElementCompletenessFeature.Output output = ElementCompletenessFeature.output(feature.output(), feature.toString());
        readsTerms = true;
        ElementCompletenessFeature.Computer computer = elementCompletenesses.computeIfAbsent(field, f -> memo(new ElementCompletenessFeature.Computer(
                f, terms(), doubleProperty("elementCompleteness(" + f + ").fieldCompletenessImportance", 0.5))));
        return new ScalarNode.OfDocument(lid -> computer.value(lid, output));
    }

    /** dotProduct(name, vector) of an array or weighted set attribute and the query's rank property dotProduct.vector. */
    private Node dotProduct(FeatureName feature) {
        if (feature.arguments().size() != 2 || feature.output() != null && ! feature.output().equals("scalar"))
            throw unsupported("feature '" + feature + "': dotProduct takes an attribute and the name of a query vector");
        String name = feature.arguments().get(0), vector = feature.arguments().get(1);
        if ( ! (index.attribute(name).orElse(null) instanceof MultiValueAttribute multi))
            throw unsupported("feature '" + feature + "': '" + name + "' is not an array or weighted set attribute of '" + index.name() + "'");
        Optional<String> value = query.string("dotProduct." + vector).filter(v -> ! v.isBlank());
        return value.isEmpty() ? new ScalarNode.Constant(0) : new DotProductFeatureNode(multi, value.get());
    }

    /**
     * itemRawScore(label): the raw score of the dotProduct or wand item the query labels so (its unique id in the rank
     * property vespa.label.label.id), on a multi-value attribute, or of the nearestNeighbor item so labeled; 0 without such an item.
     */
    private Node itemRawScore(FeatureName feature) {
        if (feature.arguments().size() != 1 || feature.output() != null)
            throw unsupported("feature '" + feature + "': itemRawScore takes a label");
        Optional<Integer> id = query.string("vespa.label." + feature.argument() + ".id").map(Integer::parseInt);
        Optional<Node> nearestNeighbor = id.flatMap(i -> NearestNeighborFeatures.itemRawScore(i, nearestNeighbors));
        if (nearestNeighbor.isPresent()) return termsRead(nearestNeighbor.get());
        List<QueryTerm> tokens = id.isEmpty() ? List.of()
                : terms.stream().filter(t -> t.kind() == QueryTerm.Kind.DOT_PRODUCT && t.item() == id.get()).toList();
        if (tokens.isEmpty()) return termsRead(new ScalarNode.Constant(0));
        return termsRead(rawScoreOf(feature, tokens.get(0).field(), tokens));
    }

    /** The dotProduct raw score of these tokens on a multi-value attribute, or on a weighted set index field. */
    private Node rawScoreOf(FeatureName feature, String field, List<QueryTerm> tokens) {
        if (index.attribute(field).orElse(null) instanceof MultiValueAttribute multi) return RawScoreNode.of(multi, tokens);
        Optional<TextIndex> text = index.index(field).filter(TextIndex::isWeighted);
        if (text.isPresent()) return RawScoreNode.of(text.get(), tokens);
        throw unsupported("feature '" + feature + "' is not supported by this content engine: only of an array or weighted set attribute, " +
                          "or a weighted set index field ('" + field + "' is neither)");
    }

    /**
     * rawScore(name): what the query's dotProduct and wand items on a multi-value attribute or weighted set index field give each
     * document, or its nearestNeighbor items on a vector or multi-vector tensor attribute.
     */
    private Node rawScore(FeatureName feature) {
        if (feature.arguments().size() != 1 || feature.output() != null)
            throw unsupported("feature '" + feature + "': rawScore takes the name of a field");
        String name = feature.argument();
        if (index.attribute(name).orElse(null) instanceof TensorAttribute tensor && tensor.vectorSearch().isPresent())
            return termsRead(NearestNeighborFeatures.rawScore(name, nearestNeighbors));
        return termsRead(rawScoreOf(feature, name, terms.stream().filter(t -> t.kind() == QueryTerm.Kind.DOT_PRODUCT && t.field().equals(name)).toList()));
    }

    /** attributeMatch(name) and its outputs, as proton computes them (see {@link AttributeMatchNode}). */
    private Node attributeMatch(FeatureName feature) {
        if (feature.arguments().size() != 1) throw unsupported("feature '" + feature + "': attributeMatch takes the name of an attribute");
        String name = feature.argument();
        Attribute attribute = index.attribute(name).filter(a -> ! (a instanceof TensorAttribute) &&
                                                               ! (a instanceof ImportedAttribute imported && (imported.target() instanceof MultiValueAttribute ||
                                                                                                              imported.target() instanceof TensorAttribute)))
                .orElseThrow(() -> unsupported("feature '" + feature + "': '" + name + "' is not an attribute of '" + index.name() + "' that this content engine matches terms in"));
        String output = feature.output() == null ? "completeness" : feature.output();
        AttributeMatchNode.Output kind = switch (output) {
            case "completeness" -> AttributeMatchNode.Output.COMPLETENESS;
            case "queryCompleteness" -> AttributeMatchNode.Output.QUERY_COMPLETENESS;
            case "fieldCompleteness" -> AttributeMatchNode.Output.FIELD_COMPLETENESS;
            case "normalizedWeight" -> AttributeMatchNode.Output.NORMALIZED_WEIGHT;
            case "normalizedWeightedWeight" -> AttributeMatchNode.Output.NORMALIZED_WEIGHTED_WEIGHT;
            case "weight" -> AttributeMatchNode.Output.WEIGHT;
            case "significance" -> AttributeMatchNode.Output.SIGNIFICANCE;
            case "importance" -> AttributeMatchNode.Output.IMPORTANCE;
            case "matches" -> AttributeMatchNode.Output.MATCHES;
            case "totalWeight" -> AttributeMatchNode.Output.TOTAL_WEIGHT;
            case "averageWeight" -> AttributeMatchNode.Output.AVERAGE_WEIGHT;
            case "maxWeight" -> AttributeMatchNode.Output.MAX_WEIGHT;
            default -> throw unsupported("feature '" + feature + "': attributeMatch has no output '" + output + "'");
        };
        String base = "attributeMatch(" + name + ")";
        return termsRead(new AttributeMatchNode(attribute, terms, terms(), kind, (int) doubleProperty(base + ".maxWeight", 256),
                                                doubleProperty(base + ".fieldCompletenessImportance", 0.05)));
    }

    /**
     * random, random.out, random.match, and the same with one argument (which only names an instance): a sequence node
     * restarted for each phase (see {@link #restartRandom}), evaluated once per document however often the
     * expressions refer to it.
     */
    private Node random(FeatureName feature) {
        if (feature.arguments().size() > 1)
            throw unsupported("feature '" + feature + "': random takes at most one argument");
        String output = feature.output() == null ? "out" : feature.output();
        if (output.equals("match")) return RandomNode.perMatch(Long.parseUnsignedLong(
                query.string("random.match.seed").or(() -> profile.property("random.match.seed")).orElse("1024").trim()));
        if ( ! output.equals("out")) throw unsupported("feature '" + feature + "': random has the outputs out and match");
        String instance = feature.arguments().isEmpty() ? "" : feature.arguments().get(0);
        return randomSequences.computeIfAbsent(instance, __ -> {
            RandomNode node = RandomNode.sequence(Long.parseUnsignedLong(profile.property("random.seed").orElse("0").trim()));
            randomNodes.add(node);
            return memo(new ScalarNode.Cached(node));
        });
    }

    /** Starts each random sequence again, as proton does when it makes the executors of a phase. */
    void restartRandom() { randomNodes.forEach(RandomNode::restart); }

    private final Map<String, Node> randomSequences = new HashMap<>();
    private final List<RandomNode> randomNodes = new java.util.ArrayList<>();

    private Node function(String name, FeatureName feature) {
        ExpressionNode body = profile.functions().get(name);
        if (body == null) throw unsupported("function '" + name + "' (" + feature + ") is not defined");
        Node node = compile(body);
        return node.type().rank() == 0 && ! node.isUniform() ? memo(new ScalarNode.Cached(node)) : node;
    }

    private Node queryFeature(String name) {
        Node node = ConstantNode.of(QueryValues.of(name, profile, query));
        if (profile.queryType(name).isEmpty()) undeclaredQueries.put(node, name);
        return node;
    }

    /** Vespa reads an undeclared query(name) as a number: using one as a tensor is an error, not a silent 0. */
    private Node requireTensorInput(Node node) {
        String undeclared = undeclaredQueries.get(node);
        if (undeclared != null)
            throw unsupported("query(" + undeclared + ") is used as a tensor but not declared in the profile's inputs, so Vespa reads it as a number");
        return node;
    }

    /**
     * attribute(name) of a single-value attribute; of a multi-value one attribute(name).count, and
     * attribute(name,key).weight and .contains, as proton's attribute feature.
     */
    private Node attribute(FeatureName feature) {
        String name = feature.arguments().isEmpty() ? "" : feature.arguments().get(0);
        if ( ! (index.attribute(name).orElse(null) instanceof MultiValueAttribute multi)) {
            if (feature.output() != null || feature.arguments().size() != 1)
                throw unsupported("feature '" + feature + "' is not supported by this content engine (only attribute(name) of a single-value attribute)");
            return attribute(name);
        }
        if (feature.arguments().size() == 1 && "count".equals(feature.output())) return new MultiValueFeatureNode(multi::count);
        if (feature.arguments().size() == 2 && "weight".equals(feature.output())) {
            var key = multi.key(feature.arguments().get(1));
            return new MultiValueFeatureNode(lid -> multi.weight(lid, key));
        }
        if (feature.arguments().size() == 2 && "contains".equals(feature.output())) {
            var key = multi.key(feature.arguments().get(1));
            return new MultiValueFeatureNode(lid -> multi.contains(lid, key) ? 1 : 0);
        }
        throw unsupported("feature '" + feature + "' of the multi-value attribute '" + name + "' is not supported by this content engine " +
                          "(attribute(name).count, attribute(name,key).weight and attribute(name,key).contains are)");
    }

    private Node attribute(String name) {
        Attribute attribute = index.attribute(name).orElseThrow(() -> unsupported("attribute(" + name + "): no such attribute in '" + index.name() + "'"));
        if (attribute instanceof TensorAttribute tensor) return new TensorAttributeNode(tensor);
        if (attribute instanceof ImportedAttribute imported && imported.target() instanceof TensorAttribute tensor)
            return new TensorAttributeNode(tensor, imported::targetLid);
        if (attribute instanceof StringAttribute) return new AttributeNode(attribute); // the hash of the value, as proton
        if ( ! attribute.isNumeric()) throw unsupported("attribute(" + name + ") is not a number or tensor attribute");
        return new AttributeNode(attribute);
    }

    private Node age(String field) {
        return new ScalarNode.Binary(now(), attribute(field), (now, docTime) -> Math.max(0, now - (long) docTime));
    }

    private Node freshness(FeatureName feature) {
        String field = feature.argument();
        if (profile.property("freshness(" + field + ").logScale").map(Boolean::parseBoolean).orElse(false))
            throw unsupported("freshness(" + field + ") with logScale is not supported");
        double maxAge = Math.max(1, doubleProperty("freshness(" + field + ").maxAge", 3 * 30 * 24 * 60 * 60));
        return new ScalarNode.Unary(age(field), age -> Math.max(1 - age / maxAge, 0));
    }

    /**
     * now: vespa.now from the request, else the profile (a constant), else the clock's second when the query started,
     * in whole seconds, as {@link QueryValues#now}. The clock is not folded: it is set for each query ({@link #startQuery}).
     */
    private Node now() {
        Optional<String> given = query.string("vespa.now").or(() -> profile.property("vespa.now"));
        if (given.isPresent()) return new ScalarNode.Constant(Double.parseDouble(given.get()));
        if (clock == null) clock = new ScalarNode.Now(System.currentTimeMillis() / 1000);
        return clock;
    }

    /** Starts a query at this second of the clock: now reads it, and the nodes that remember a document forget it. */
    void startQuery(long clockSecond) {
        if (clock != null) clock.start(clockSecond);
        for (Memo memo : memos) memo.forget();
    }

    /** Whether what was compiled so far depends on the query terms (text features, nearest-neighbor closeness). */
    boolean readsTerms() { return readsTerms; }

    /** Whether a compiled node reads firstPhase, the first-phase score a block carries. */
    boolean readsFirstPhase() { return readsFirstPhase; }

    /** Compiles the first-phase expression, which may not read firstPhase, and makes it what firstPhase reads elsewhere. */
    Node compileFirstPhase(ExpressionNode expression) {
        compilingFirstPhase = true;
        try {
            Node node = compile(expression);
            firstPhase.bind(node);
            return node;
        }
        finally {
            compilingFirstPhase = false;
        }
    }

    /** Whether a compiled node reads now from the clock. */
    boolean usesClock() { return clock != null; }

    private <T> T termsRead(T value) {
        readsTerms = true;
        return value;
    }

    private NativeRankSetup nativeSetup;
    private NativeRankFeatures.Terms nativeTerms;
    private final Map<String, FieldMatchFeature.Computer> fieldMatches = new HashMap<>();

    /** The query's ranked terms as the text features read them (each term's matches read once per document). */
    /** The index fields the profile makes filters (rank: filter), whose term match data hold no occurrences. */
    private Set<String> filterFields() {
        Set<String> fields = new java.util.HashSet<>();
        for (String name : profile.propertyNames())
            if (name.startsWith("vespa.isfilterfield.") && "true".equals(profile.property(name).orElse(null)))
                fields.add(name.substring("vespa.isfilterfield.".length()));
        return fields;
    }

    private NativeRankFeatures.Terms terms() {
        if (nativeTerms == null) nativeTerms = new NativeRankFeatures.Terms(rankTerms, query, filterFields());
        return nativeTerms;
    }

    private final Map<String, TextSimilarityFeature.Computer> textSimilarities = new HashMap<>();

    /** textSimilarity(field) and its outputs (see {@link TextSimilarityFeature}), of a single-value index field. */
    private Node textSimilarity(FeatureName feature) {
        String field = feature.argument();
        TextSimilarityFeature.Output output = TextSimilarityFeature.output(feature.output(), feature.toString());
        TextIndex text = index.index(field).orElseThrow(() -> unsupported("feature '" + feature + "': '" + field + "' is not an index field of '" + index.name() + "'"));
        if (text.isMultiValue()) throw unsupported("feature '" + feature + "': textSimilarity takes a single-value index field, and '" + field + "' is not");
        readsTerms = true;
        TextSimilarityFeature.Computer computer = textSimilarities.computeIfAbsent(field, f -> memo(new TextSimilarityFeature.Computer(f, terms())));
        return new ScalarNode.OfDocument(lid -> computer.value(lid, output));
    }

    /** foreach(terms, variable, feature, condition, operation) (see {@link ForeachNode}). */
    private Node foreach(FeatureName feature) {
        List<String> arguments = feature.arguments();
        if (arguments.size() != 5 || feature.output() != null && ! feature.output().equals("value"))
            throw unsupported("feature '" + feature + "': foreach takes a dimension, a variable, a feature, a condition and an operation");
        if ( ! arguments.get(0).equals("terms"))
            throw unsupported("feature '" + feature + "': foreach over " + arguments.get(0) + " is not supported by this content engine (over terms is)");
        String condition = arguments.get(3);
        char kind;
        double bound = 0;
        if (condition.equals("true")) kind = 't';
        else if (condition.length() >= 2 && (condition.charAt(0) == '<' || condition.charAt(0) == '>')) {
            kind = condition.charAt(0);
            try {
                bound = Double.parseDouble(condition.substring(1));
            }
            catch (NumberFormatException e) {
                throw unsupported("feature '" + feature + "': the condition '" + condition + "' is not 'true', '<a' or '>a' with a number a");
            }
        }
        else throw unsupported("feature '" + feature + "': the condition of foreach is 'true', '<a' or '>a', not '" + condition + "'");
        ForeachNode.Operation operation = ForeachNode.operation(arguments.get(4), feature.toString());
        int maxTerms = Integer.parseInt(profile.property("foreach.maxTerms").orElse("16").trim());
        List<Node> inputs = new ArrayList<>();
        for (int i = 0; i < maxTerms; i++) inputs.add(feature(ForeachNode.replace(arguments.get(2), arguments.get(1), String.valueOf(i))));
        ForeachNode node = new ForeachNode(inputs, kind, bound, operation);
        return node.isConstant() ? new ScalarNode.Constant(node.number(0)) : node;
    }

    /** fieldMatch(field) and its outputs, one computation per field and document (see {@link FieldMatchFeature}). */
    private Node fieldMatch(FeatureName feature) {
        String field = feature.argument();
        FieldMatchFeature.Output output = FieldMatchFeature.Output.of(feature.output(), feature.toString());
        FieldMatchFeature.checkField(field, index, profile, feature.toString());
        FieldMatchFeature.Params params = FieldMatchFeature.Params.of(profile, field);
        readsTerms = true;
        FieldMatchFeature.Computer computer = fieldMatches.computeIfAbsent(field, f -> memo(new FieldMatchFeature.Computer(f, params, terms(), query)));
        return new ScalarNode.OfDocument(lid -> computer.value(lid, output));
    }

    /** The profile's native rank settings over this index (checked when first needed). */
    private NativeRankSetup nativeSetup() {
        if (nativeSetup == null) nativeSetup = profile.nativeRankSetup(index);
        return nativeSetup;
    }

    /** nativeRank, nativeFieldMatch, nativeProximity and nativeAttributeMatch, of the given fields or all (see {@link NativeRankFeatures}). */
    private Node nativeFeature(FeatureName feature) {
        if (feature.output() != null && ! feature.output().equals("score"))
            throw unsupported("feature '" + feature + "': " + feature.name() + " has the one output score");
        readsTerms = true;
        NativeRankSetup setup = nativeSetup();
        terms();
        return switch (feature.name()) {
            case "nativeFieldMatch" -> new NativeRankFeatures.FieldMatch(setup, setup.fields(feature, false), nativeTerms);
            case "nativeProximity" -> new NativeRankFeatures.Proximity(setup, setup.fields(feature, false), nativeTerms);
            case "nativeAttributeMatch" -> {
                setup.checkAttributeArguments(feature);
                yield new NativeRankFeatures.AttributeMatch(setup, setup.fields(feature, true), nativeTerms);
            }
            default -> nativeRank(feature, setup);
        };
    }

    /**
     * nativeRank: of its three parts over all fields, or with arguments, field match and proximity over the index fields
     * among them and attribute match over the attributes among them (0 for a part with none of its fields, or weight 0).
     */
    private Node nativeRank(FeatureName feature, NativeRankSetup setup) {
        String fieldMatch = "nativeFieldMatch", proximity = "nativeProximity", attributeMatch = "nativeAttributeMatch";
        if ( ! feature.arguments().isEmpty()) {
            List<String> indexFields = setup.fields(feature, false), attributes = setup.fields(feature, true);
            fieldMatch = indexFields.isEmpty() ? null : "nativeFieldMatch(" + String.join(",", indexFields) + ")";
            proximity = indexFields.isEmpty() ? null : "nativeProximity(" + String.join(",", indexFields) + ")";
            attributeMatch = attributes.isEmpty() ? null : "nativeAttributeMatch(" + String.join(",", attributes) + ")";
        }
        if (setup.fieldMatchWeight() == 0) fieldMatch = null;
        if (setup.proximityWeight() == 0) proximity = null;
        if (setup.attributeMatchWeight() == 0) attributeMatch = null;
        return new NativeRankFeatures.NativeRank(fieldMatch == null ? new ScalarNode.Constant(0) : feature(fieldMatch),
                                                 proximity == null ? new ScalarNode.Constant(0) : feature(proximity),
                                                 attributeMatch == null ? new ScalarNode.Constant(0) : feature(attributeMatch),
                                                 setup);
    }

    private Node onnx(FeatureName feature) {
        String modelName = feature.argument();
        OnnxModel model = assets.model(modelName).orElseThrow(() -> unsupported("onnx(" + modelName + "): no such model"));
        OnnxNode.Run run = onnxRuns.computeIfAbsent(modelName, k -> {
            Map<String, Node> inputs = new LinkedHashMap<>();
            model.inputSources().forEach((input, source) -> inputs.put(input, onnxInput(model, input, source)));
            return memo(new OnnxNode.Run(model, inputs));
        });
        String output = model.modelOutput(feature.output());
        TensorType type = model.evaluator().getOutputInfo().get(output);
        if (type == null) throw unsupported("onnx(" + modelName + "): the model file has no output '" + output + "'; it has " + model.evaluator().getOutputInfo().keySet());
        return new OnnxNode(run, output, type);
    }

    /** The compiled source of an ONNX model input, checked against the input's type in the model file. */
    private Node onnxInput(OnnxModel model, String input, String source) {
        TensorType expected = model.inputTypes().get(input);
        if (expected == null) throw unsupported("onnx(" + model.name() + "): the model file has no input '" + input + "'; it has " + model.inputTypes().keySet());
        Node node = requireTensorInput(feature(source));
        if ( ! OnnxModel.fits(node.type(), expected))
            throw unsupported("onnx(" + model.name() + "): input '" + input + "' is bound to " + source + " of type " + node.type()
                              + ", but the model expects " + expected);
        return node;
    }

    private TextIndex textIndex(String field) {
        return index.index(field).orElseThrow(() -> unsupported("'" + field + "' is not an indexed field of '" + index.name() + "'"));
    }

    private double doubleProperty(String name, double defaultValue) {
        return query.string(name).or(() -> profile.property(name)).map(Double::parseDouble).orElse(defaultValue);
    }

    private Node compileIf(IfNode ifNode) {
        Node condition = compile(ifNode.getCondition());
        Node whenTrue = compile(ifNode.getTrueExpression()), whenFalse = compile(ifNode.getFalseExpression());
        if (whenTrue.type().rank() > 0) requireTensorInput(whenFalse);
        if (whenFalse.type().rank() > 0) requireTensorInput(whenTrue);
        if (condition.isConstant()) return condition.number(0) != 0 ? whenTrue : whenFalse;
        if (condition.type().rank() == 0 && whenTrue.type().rank() == 0 && whenFalse.type().rank() == 0)
            return new ScalarNode.If(condition, whenTrue, whenFalse);
        return generic(ifNode);
    }

    private Node compileOperation(OperationNode operation) {
        List<Node> children = operation.children().stream().map(this::compile).toList();
        if (children.stream().allMatch(Node::isConstant)) return fold(operation);
        if (children.stream().anyMatch(child -> child.type().rank() > 0))
            return mixedTensors.operation(children, operation.operators()).orElseGet(() -> generic(operation));
        // Apply in precedence order, as OperationNode does
        Deque<Node> values = new ArrayDeque<>();
        Deque<Operator> operators = new ArrayDeque<>();
        values.push(children.get(0));
        for (int i = 0; i < operation.operators().size(); i++) {
            Operator op = operation.operators().get(i);
            while ( ! operators.isEmpty() && ! op.hasPrecedenceOver(operators.peek())) reduce(values, operators);
            operators.push(op);
            values.push(children.get(i + 1));
        }
        while ( ! operators.isEmpty()) reduce(values, operators);
        return values.pop();
    }

    private static void reduce(Deque<Node> values, Deque<Operator> operators) {
        Node right = values.pop(), left = values.pop();
        Operator operator = operators.pop();
        ArithmeticNode.Kind arithmetic = switch (operator) {
            case plus -> ArithmeticNode.Kind.ADD;
            case minus -> ArithmeticNode.Kind.SUBTRACT;
            case multiply -> ArithmeticNode.Kind.MULTIPLY;
            case divide -> ArithmeticNode.Kind.DIVIDE;
            default -> null;
        };
        values.push(arithmetic != null ? new ArithmeticNode(left, right, arithmetic) : new ScalarNode.Binary(left, right, scalarOperator(operator)));
    }

    private static DoubleBinaryOperator scalarOperator(Operator operator) {
        return switch (operator) {
            case or -> (a, b) -> (a != 0 || b != 0) ? 1 : 0;
            case and -> (a, b) -> (a != 0 && b != 0) ? 1 : 0;
            case largerOrEqual -> (a, b) -> a >= b ? 1 : 0;
            case larger -> (a, b) -> a > b ? 1 : 0;
            case smallerOrEqual -> (a, b) -> a <= b ? 1 : 0;
            case smaller -> (a, b) -> a < b ? 1 : 0;
            case notEqual -> (a, b) -> a != b ? 1 : 0;
            case equal -> (a, b) -> a == b ? 1 : 0;
            case plus -> Double::sum;
            case minus -> (a, b) -> a - b;
            case multiply -> (a, b) -> a * b;
            case divide -> (a, b) -> a / b;
            case modulo -> (a, b) -> a % b;
            case power -> Math::pow;
            default -> (a, b) -> operator.evaluate(new DoubleValue(a), new DoubleValue(b)).asDouble();
        };
    }

    private Node compileFunction(FunctionNode function) {
        List<Node> arguments = function.children().stream().map(this::compile).toList();
        if (arguments.stream().allMatch(Node::isConstant)) return fold(function);
        var f = function.getFunction();
        if (arguments.stream().allMatch(a -> a.type().rank() == 0)) {
            if (arguments.size() == 1)
                return MathNode.of(f).<Node>map(kind -> new MathNode(arguments.get(0), kind))
                               .orElseGet(() -> new ScalarNode.Unary(arguments.get(0), x -> f.evaluate(x, 0)));
            if (arguments.size() == 2 && (f == com.yahoo.searchlib.rankingexpression.rule.Function.max || f == com.yahoo.searchlib.rankingexpression.rule.Function.min))
                return new ArithmeticNode(arguments.get(0), arguments.get(1), f == com.yahoo.searchlib.rankingexpression.rule.Function.max ? ArithmeticNode.Kind.MAX : ArithmeticNode.Kind.MIN);
            if (arguments.size() == 2) return new ScalarNode.Binary(arguments.get(0), arguments.get(1), f::evaluate);
        }
        if (arguments.size() == 1 && arguments.get(0) instanceof VectorNode vector)
            return memo(MathNode.of(f).<VectorNode>map(kind -> new VectorNode.MathMap(vector, kind))
                                .orElseGet(() -> new VectorNode.Map(vector, x -> f.evaluate(x, 0))));
        return mixedTensors.function(function, arguments).orElseGet(() -> generic(function));
    }

    private Node compileTensorFunction(TensorFunctionNode node) {
        TensorFunction<?> function = node.function();
        if (function instanceof DynamicTensor<?> dynamic) return compileDynamicTensor(node, dynamic);
        if (function instanceof Generate<?> generate) { // its expression reads the dimensions it binds: compile what it references besides them
            Set<String> dimensions = generate.type(null).dimensionNames();
            boolean constant = true;
            for (String name : references(node))
                if ( ! dimensions.contains(name)) constant &= feature(name).isConstant();
            return constant ? fold(node) : gather(node).orElseGet(() -> generic(node));
        }
        if (function instanceof MapSubspaces<?>) {
            Optional<Node> unpacked = mixedTensors.mapSubspaces(node);
            if (unpacked.isPresent()) return unpacked.get();
        }
        if (function instanceof Reduce<?>) { // max-sim first: its join of two mapped dimensions is not compiled on its own
            Optional<Node> maxSim = lateInteraction.reduce(node);
            if (maxSim.isPresent()) return maxSim.get();
        }
        if (function instanceof Join<?>) { // top(n, t) first: its second argument is not compiled on its own
            Optional<Node> top = mixedTensors.top(node);
            if (top.isPresent()) return top.get();
        }
        // xw_plus_b first, from its bias: its reduce is not compiled on its own (which would make a generic node of it,
        // whose type Vespa resolves without the dimension argument xw_plus_b binds, logging a warning each compile)
        Node bias = function instanceof Join<?> && node.children().size() == 2 ? requireTensorInput(compile(node.children().get(1))) : null;
        if (bias != null && function instanceof Join<?> join) {
            Optional<Node> dense = xwPlusB(node, join, bias);
            if (dense.isPresent()) return dense.get();
        }
        List<Node> children = new ArrayList<>();
        for (int c = 0; c < node.children().size(); c++)
            children.add(c == 1 && bias != null ? bias : requireTensorInput(compile(node.children().get(c))));
        if (function instanceof Reduce<?> && children.get(0) instanceof SubspaceNode cells) {
            String[] tail = reduceTail(node);
            Optional<Node> reduced = tail == null ? Optional.empty()
                    : mixedTensors.reduce(node, cells, tail[0].trim(), reducedDimensions(node));
            if (reduced.isPresent()) return reduced.get();
        }
        if (children.stream().allMatch(Node::isConstant)) return fold(node);
        if (function instanceof Reduce<?> && children.get(0) instanceof DenseCells dense && isFullSum(node))
            return new VectorNode.Sum(dense);
        return gather(node).orElseGet(() -> generic(node));
    }

    /**
     * A tensor generator of one varying dense feature that only moves its cells around (a reshape, rename
     * or slice) becomes a {@link DenseGather}: found by evaluating it with the feature's cells replaced by
     * 1, 2, 3, ... and again by 2, 4, 6, ..., and reading which source cell each output cell took.
     */
    private Optional<Node> gather(TensorFunctionNode node) {
        if ( ! (node.function() instanceof Generate<?> generate)) return Optional.empty();
        Set<String> dimensions = generate.type(null).dimensionNames();
        List<String> varying = references(node).stream().filter(name -> ! dimensions.contains(name))
                                                .filter(name -> ! feature(name).isConstant()).toList();
        if (varying.size() != 1 || ! (feature(varying.get(0)) instanceof DenseCells dense)) return Optional.empty();
        String name = varying.get(0);
        TensorType sourceType = feature(name).type();
        if (sourceType.dimensions().stream().anyMatch(d -> ! d.isIndexed() || d.size().isEmpty())) return Optional.empty();
        Tensor once = probe(node, name, sourceType, 1), twice = probe(node, name, sourceType, 2);
        if ( ! (once instanceof IndexedTensor first) || ! (twice instanceof IndexedTensor second)
             || first.type().dimensions().stream().anyMatch(d -> d.size().isEmpty())) return Optional.empty();
        int[] sources = new int[(int) first.size()];
        for (int c = 0; c < sources.length; c++) {
            double value = first.get(c);
            int source = (int) value - 1;
            if (value != source + 1 || source < 0 || source >= dense.cellCount() || second.get(c) != 2 * value) return Optional.empty();
            sources[c] = source;
        }
        return Optional.of(new DenseGather(first.type(), dense, sources));
    }

    private Tensor probe(TensorFunctionNode node, String name, TensorType type, int scale) {
        IndexedTensor.BoundBuilder builder = (IndexedTensor.BoundBuilder) Tensor.Builder.of(type);
        for (int c = 0; c < type.dimensions().stream().mapToLong(d -> d.size().get()).reduce(1, (a, b) -> a * b); c++)
            builder.cellByDirectIndex(c, scale * (c + 1));
        Node probe = new ConstantNode(new TensorValue(builder.build()));
        return new GenericNode(node, feature -> feature.equals(name) ? probe : feature(feature)).tensor(0);
    }

    /** tensor(x[n]):{...} of numbers over one bound dimension becomes a vector of compiled cells. */
    private Node compileDynamicTensor(TensorFunctionNode node, DynamicTensor<?> dynamic) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        List<TensorFunction<?>> cells = (List) dynamic.cellGeneratorFunctions();
        List<Node> compiled = new ArrayList<>();
        for (TensorFunction<?> cell : cells) {
            if ( ! (cell instanceof TensorFunctionNode.ExpressionTensorFunction expression)) return foldOrGeneric(node);
            compiled.add(compile(expression.wrappedExpression()));
        }
        if (compiled.stream().allMatch(Node::isConstant)) return fold(node);
        TensorType type = dynamic.type(null);
        if (type.rank() != 1 || type.dimensions().get(0).size().isEmpty() || compiled.stream().anyMatch(c -> c.type().rank() > 0))
            return generic(node);
        // Find where each cell goes: evaluate the same tensor with cell i replaced by the number i
        @SuppressWarnings({"unchecked", "rawtypes"})
        DynamicTensor<com.yahoo.searchlib.rankingexpression.Reference> typed = (DynamicTensor) dynamic;
        int[] counter = {0};
        var positions = typed.withTransformedFunctions(f -> TensorFunctionNode.wrapScalar(
                new com.yahoo.searchlib.rankingexpression.rule.ConstantNode(new DoubleValue(counter[0]++))));
        Tensor placed = positions.evaluate(new MapContext());
        int size = type.dimensions().get(0).size().get().intValue();
        Node[] ordered = new Node[size];
        for (int i = 0; i < size; i++) {
            int cell = (int) placed.get(TensorAddress.of(i));
            ordered[i] = cell < compiled.size() ? compiled.get(cell) : new ScalarNode.Constant(0);
        }
        for (int i = 0; i < size; i++) if (ordered[i] == null) ordered[i] = new ScalarNode.Constant(0);
        return memo(new VectorNode.FromScalars(type, ordered));
    }

    /** join(reduce(join(x, w, f(a,b)(a * b)), sum, d), b, f(a,b)(a + b)) with vector x and constant w, b. */
    private Optional<Node> xwPlusB(TensorFunctionNode node, Join<?> join, Node biasNode) {
        if ( ! isPlus(join) || ! (biasNode instanceof ConstantNode bias)) return Optional.empty();
        ExpressionNode reduceExpression = node.children().get(0);
        if ( ! (reduceExpression instanceof TensorFunctionNode reduceNode) || ! (reduceNode.function() instanceof Reduce<?>)) return Optional.empty();
        List<String> reduced = reducedDimensions(reduceNode);
        if (reduced == null || reduced.size() != 1 || ! reducedAggregatorIsSum(reduceNode)) return Optional.empty();
        ExpressionNode productExpression = reduceNode.children().get(0);
        if ( ! (productExpression instanceof TensorFunctionNode productNode) || ! (productNode.function() instanceof Join<?> product) || ! isMultiply(product))
            return Optional.empty();
        Node x = compile(productNode.children().get(0)), w = compile(productNode.children().get(1));
        if (w instanceof VectorNode && x instanceof ConstantNode) { Node t = x; x = w; w = t; }
        if ( ! (x instanceof VectorNode input) || ! (w instanceof ConstantNode weights)) return Optional.empty();
        String in = input.dimension();
        if ( ! reduced.get(0).equals(in) || weights.type().rank() != 2 || bias.type().rank() != 1) return Optional.empty();
        String out = bias.type().dimensions().get(0).name();
        if (weights.type().dimension(in).isEmpty() || weights.type().dimension(out).isEmpty()) return Optional.empty();
        int inSize = input.size();
        Optional<Long> outBound = bias.type().dimensions().get(0).size();
        if (outBound.isEmpty()) return Optional.empty();
        int outSize = outBound.get().intValue();
        Tensor wt = weights.tensor(), bt = bias.tensor();
        double[] matrix = new double[inSize * outSize];
        double[] b = new double[outSize];
        Map<String, Long> address = new HashMap<>();
        for (int i = 0; i < inSize; i++) {
            for (int j = 0; j < outSize; j++) {
                address.put(in, (long) i);
                address.put(out, (long) j);
                matrix[i * outSize + j] = wt.get(addressOf(wt.type(), address));
            }
        }
        for (int j = 0; j < outSize; j++) b[j] = bt.get(TensorAddress.of(j));
        TensorType.Value cells = TensorType.Value.largestOf(input.type().valueType(), TensorType.Value.largestOf(weights.type().valueType(), bias.type().valueType()));
        TensorType outType = new TensorType.Builder(cells).indexed(out, outSize).build();
        return Optional.of(memo(new VectorNode.XwPlusB(outType, input, matrix, b)));
    }

    private static TensorAddress addressOf(TensorType type, Map<String, Long> labels) {
        long[] indexes = new long[type.rank()];
        for (int d = 0; d < type.rank(); d++) indexes[d] = labels.get(type.dimensions().get(d).name());
        return TensorAddress.of(indexes);
    }

    private static boolean isPlus(Join<?> join) { return join.combinator().applyAsDouble(2, 3) == 5 && join.combinator().applyAsDouble(1, 1) == 2; }
    private static boolean isMultiply(Join<?> join) { return join.combinator().applyAsDouble(2, 3) == 6 && join.combinator().applyAsDouble(1, 1) == 1; }

    /** The dimensions a reduce names (empty for all), from its canonical form "reduce(arg, aggregator, d1, ...)". */
    private static List<String> reducedDimensions(TensorFunctionNode reduce) {
        String[] parts = reduceTail(reduce);
        if (parts == null) return null;
        List<String> dimensions = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) dimensions.add(parts[i].trim());
        return dimensions;
    }

    private static boolean reducedAggregatorIsSum(TensorFunctionNode reduce) {
        String[] parts = reduceTail(reduce);
        return parts != null && parts[0].trim().equals("sum");
    }

    private static boolean isFullSum(TensorFunctionNode reduce) {
        List<String> dimensions = reducedDimensions(reduce);
        return dimensions != null && dimensions.isEmpty() && reducedAggregatorIsSum(reduce);
    }

    private static String[] reduceTail(TensorFunctionNode reduce) {
        String text = reduce.toString();
        String argument = reduce.children().get(0).toString();
        int start = text.indexOf(argument);
        if ( ! text.startsWith("reduce(") || start < 0 || ! text.endsWith(")")) return null;
        String tail = text.substring(start + argument.length(), text.length() - 1).trim();
        if ( ! tail.startsWith(",")) return null;
        return tail.substring(1).split(",");
    }

    private Node foldOrGeneric(ExpressionNode expression) {
        GenericNode generic = new GenericNode(expression, this::feature);
        return references(expression).stream().allMatch(name -> feature(name).isConstant()) ? ConstantNode.of(generic.value(0)) : memo(generic);
    }

    /** The type of an expression as searchlib resolves it, with the types of the compiled features it references. */
    private TensorType typeOf(ExpressionNode expression) { return new GenericNode(expression, this::feature).type(); }

    private Node fold(ExpressionNode expression) { return ConstantNode.of(new GenericNode(expression, this::feature).value(0)); }

    private Node generic(ExpressionNode expression) { return memo(new GenericNode(expression, this::feature)); }

    private <T extends Memo> T memo(T node) {
        memos.add(node);
        return node;
    }

    private static Set<String> references(ExpressionNode expression) {
        Set<String> names = new HashSet<>();
        collect(expression, names);
        return names;
    }

    private static void collect(ExpressionNode expression, Set<String> names) {
        if (expression instanceof ReferenceNode reference) {
            names.add(reference.reference().isIdentifier() ? reference.getName() : reference.toString());
            return;
        }
        if (expression instanceof com.yahoo.searchlib.rankingexpression.rule.CompositeNode composite)
            for (ExpressionNode child : composite.children()) collect(child, names);
    }

    private UnsupportedFeatureException unsupported(String message) {
        return new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + message);
    }

}
