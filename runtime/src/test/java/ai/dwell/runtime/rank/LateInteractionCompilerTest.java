package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.searchlib.rankingexpression.RankingExpression;
import com.yahoo.searchlib.rankingexpression.evaluation.MapContext;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.searchlib.rankingexpression.evaluation.Value;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ColBERT's max-sim compiled ({@link LateInteractionCompiler}) against searchlib's Java evaluator of the same
 * expressions on the same tensors: bit-packed int8 (unpack_bits, inline and through a function), float and bfloat16
 * token vectors tensor(dt{},x[n]), and colbert-long's tensor&lt;int8&gt;(context{},token{},v[4]) with the max over the
 * tokens of each context or over all; 80 random documents of 0 to 20 tokens (some without the fields), five query
 * tensors of 0 to 12 vectors. The dot products and maxima are the evaluator's bit for bit, with their labels; the sums
 * over the query's vectors, added in the query's order of labels where the evaluator adds in its hash map's, within
 * 2·Q ulps of the sum of their magnitudes (the bound on reordering Q additions).
 */
public class LateInteractionCompilerTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field bits type tensor<int8>(dt{}, x[4]) { indexing: attribute }
                    field floats type tensor<float>(dt{}, x[32]) { indexing: attribute }
                    field halves type tensor<bfloat16>(dt{}, x[32]) { indexing: attribute }
                    field long type tensor<int8>(context{}, token{}, v[4]) { indexing: attribute }
                }
                rank-profile maxsim {
                    inputs {
                        query(qt) tensor<float>(qt{}, x[32])
                        query(ql) tensor<float>(querytoken{}, v[32])
                    }
                    function unpack() { expression: unpack_bits(attribute(bits)) }
                    function bitsSim() { expression: sum(reduce(sum(query(qt) * unpack_bits(attribute(bits)), x), max, dt), qt) }
                    function bitsSimThroughFunction() { expression: sum(reduce(sum(unpack() * query(qt), x), max, dt), qt) }
                    function floatDots() { expression: sum(query(qt) * attribute(floats), x) }
                    function floatMax() { expression: reduce(sum(query(qt) * attribute(floats), x), max, dt) }
                    function floatSim() { expression: sum(reduce(sum(query(qt) * attribute(floats), x), max, dt), qt) }
                    function halfSim() { expression: sum(reduce(sum(query(qt) * attribute(halves), x), max, dt), qt) }
                    function perContext() { expression: sum(reduce(sum(query(ql) * unpack_bits(attribute(long)), v), max, token), querytoken) }
                    function bestContext() { expression: reduce(perContext(), max, context) }
                    function crossContext() { expression: sum(reduce(sum(query(ql) * unpack_bits(attribute(long)), v), max, token, context), querytoken) }
                    first-phase { expression: floatSim() }
                }
            }
            """;

    private static final TensorType BITS = TensorType.fromSpec("tensor<int8>(dt{},x[4])"), FLOATS = TensorType.fromSpec("tensor<float>(dt{},x[32])"),
            HALVES = TensorType.fromSpec("tensor<bfloat16>(dt{},x[32])"), LONG = TensorType.fromSpec("tensor<int8>(context{},token{},v[4])");

    /** The functions, as Java's evaluator reads them, with the functions written out; and the sum each adds over the query, if any. */
    private static final Map<String, String> REFERENCE = new LinkedHashMap<>(), SUMMED = new HashMap<>();
    static {
        String bitsMax = "reduce(sum(query(qt) * unpack_bits(attribute(bits)), x), max, dt)";
        String floatMax = "reduce(sum(query(qt) * attribute(floats), x), max, dt)";
        String halfMax = "reduce(sum(query(qt) * attribute(halves), x), max, dt)";
        String contextMax = "reduce(sum(query(ql) * unpack_bits(attribute(long)), v), max, token)";
        String crossMax = "reduce(sum(query(ql) * unpack_bits(attribute(long)), v), max, token, context)";
        REFERENCE.put("bitsSim", "sum(" + bitsMax + ", qt)");
        REFERENCE.put("bitsSimThroughFunction", "sum(" + bitsMax + ", qt)");
        REFERENCE.put("floatDots", "sum(query(qt) * attribute(floats), x)");
        REFERENCE.put("floatMax", floatMax);
        REFERENCE.put("floatSim", "sum(" + floatMax + ", qt)");
        REFERENCE.put("halfSim", "sum(" + halfMax + ", qt)");
        REFERENCE.put("perContext", "sum(" + contextMax + ", querytoken)");
        REFERENCE.put("bestContext", "reduce(sum(" + contextMax + ", querytoken), max, context)");
        REFERENCE.put("crossContext", "sum(" + crossMax + ", querytoken)");
        SUMMED.put("bitsSim", bitsMax);
        SUMMED.put("bitsSimThroughFunction", bitsMax);
        SUMMED.put("floatSim", floatMax);
        SUMMED.put("halfSim", halfMax);
        SUMMED.put("perContext", contextMax);
        SUMMED.put("bestContext", contextMax);
        SUMMED.put("crossContext", crossMax);
    }

    @TempDir static Path tmp;
    private static ContentClusterConfig cluster;
    private static DocumentIndex index;
    private static RankProfile profile;
    private static final List<Map<String, Tensor>> stored = new ArrayList<>(); // by local id: the document's tensors, by field

    @BeforeAll
    static void feed() throws Exception {
        cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        DocumentType type = types.getDocumentType("doc");
        index = new DocumentIndex(cluster.schema("doc"), types);
        for (RankProfilesConfig.Rankprofile config : cluster.schema("doc").rankProfiles().rankprofile())
            if (config.name().equals("maxsim")) profile = new RankProfile(config);
        Random random = new Random(18);
        for (int d = 0; d < 80; d++) {
            Document document = new Document(type, new DocumentId("id:test:doc::" + d));
            Map<String, Tensor> tensors = new HashMap<>();
            if (d % 9 != 4) { // some documents without the fields
                int tokens = random.nextInt(21);
                Tensor.Builder bits = Tensor.Builder.of(BITS), floats = Tensor.Builder.of(FLOATS), halves = Tensor.Builder.of(HALVES);
                for (int t = 0; t < tokens; t++) {
                    String label = Integer.toString(random.nextInt(3) == 0 ? t : 40 - t); // labels in no particular order
                    for (int i = 0; i < 4; i++) bits.cell(TensorAddress.ofLabels(label, Integer.toString(i)), random.nextInt(256) - 128);
                    for (int i = 0; i < 32; i++) {
                        floats.cell(TensorAddress.ofLabels(label, Integer.toString(i)), (float) random.nextGaussian());
                        halves.cell(TensorAddress.ofLabels(label, Integer.toString(i)), bfloat16((float) random.nextGaussian()));
                    }
                }
                Tensor.Builder long_ = Tensor.Builder.of(LONG);
                int contexts = random.nextInt(4);
                for (int c = 0; c < contexts; c++) {
                    int inContext = random.nextInt(9);
                    for (int t = 0; t < inContext; t++)
                        for (int i = 0; i < 4; i++)
                            long_.cell(TensorAddress.ofLabels(Integer.toString(c == 0 ? 7 : c), Integer.toString(t), Integer.toString(i)),
                                       random.nextInt(256) - 128);
                }
                tensors.put("bits", bits.build());
                tensors.put("floats", floats.build());
                tensors.put("halves", halves.build());
                tensors.put("long", long_.build());
                for (var tensor : tensors.entrySet()) document.setFieldValue(tensor.getKey(), new TensorFieldValue(tensor.getValue()));
            }
            int lid = index.put(document);
            while (stored.size() <= lid) stored.add(Map.of());
            stored.set(lid, tensors);
        }
    }

    private static float bfloat16(float value) { return Float.intBitsToFloat(Float.floatToRawIntBits(value) & 0xffff0000); }

    private static Tensor query(Random random, String spec, int vectors) {
        TensorType type = TensorType.fromSpec(spec);
        Tensor.Builder builder = Tensor.Builder.of(type);
        for (int j = 0; j < vectors; j++)
            for (int i = 0; i < 32; i++) builder.cell(TensorAddress.ofLabels(Integer.toString(vectors - j), Integer.toString(i)), (float) random.nextGaussian());
        return builder.build();
    }

    @Test
    void compiledMaxSimIsJavasEvaluators() {
        Random random = new Random(7);
        for (int vectors : new int[] { 0, 1, 3, 8, 12 }) {
            Tensor qt = query(random, "tensor<float>(qt{},x[32])", vectors), ql = query(random, "tensor<float>(querytoken{},v[32])", vectors);
            ExpressionCompiler compiler = new ExpressionCompiler(profile, null, index, List.of(),
                    new QueryProperties(Map.of("query(qt)", qt.toString(), "query(ql)", ql.toString()), Map.of()));
            Map<String, Node> nodes = new LinkedHashMap<>();
            for (String name : REFERENCE.keySet()) nodes.put(name, compiler.feature("rankingExpression(" + name + ")"));
            compiler.startQuery(0);
            assertInstanceOf(MaxSimNode.Dots.class, nodes.get("floatDots"));
            assertInstanceOf(MaxSimNode.MaxOverRows.class, nodes.get("floatMax"));
            assertInstanceOf(MaxSimNode.SumOfGroupMax.class, nodes.get("perContext"));
            for (String name : List.of("bitsSim", "bitsSimThroughFunction", "floatSim", "halfSim", "crossContext"))
                assertInstanceOf(MaxSimNode.MaxOverRows.class, reduced(nodes.get(name)).input(), name + " is compiled");
            assertInstanceOf(MaxSimNode.SumOfGroupMax.class, reduced(nodes.get("bestContext")).input(), "bestContext is compiled");

            for (int lid = 1; lid < stored.size(); lid++) {
                MapContext context = new MapContext();
                context.put("query(qt)", new TensorValue(qt));
                context.put("query(ql)", new TensorValue(ql));
                for (var field : Map.of("bits", BITS, "floats", FLOATS, "halves", HALVES, "long", LONG).entrySet()) {
                    Tensor tensor = stored.get(lid).get(field.getKey());
                    context.put("attribute(" + field.getKey() + ")", new TensorValue(tensor != null ? tensor : Tensor.Builder.of(field.getValue()).build()));
                }
                for (var reference : REFERENCE.entrySet()) {
                    String name = reference.getKey();
                    Value expected = evaluate(reference.getValue(), context);
                    Node node = nodes.get(name);
                    String where = name + " of document " + lid + " with " + vectors + " query vectors";
                    if (node.type().rank() == 0) {
                        double tolerance = SUMMED.containsKey(name) ? 2 * vectors * Math.ulp(magnitude(evaluate(SUMMED.get(name), context).asTensor())) : 0;
                        assertEquals(expected.asDouble(), node.number(lid), tolerance, where);
                    }
                    else {
                        assertCells(expected.asTensor(), node.tensor(lid), name.equals("perContext") ? 2 * vectors * Math.ulp(magnitude(evaluate(SUMMED.get(name), context).asTensor())) : 0, where);
                    }
                }
            }
        }
    }

    @Test
    void maxSimWorkedOutByHand() throws Exception {
        // bits: token a bytes 0x40,0x03,0,0 (big endian: x 1, 14, 15 set), token b 0,0,0,1 (x 31). Query vector 1: q[x] = x,
        // so a·1 = 30 and b·1 = 31; vector 2: q[x] = 1 for x < 16, else 0, so a·2 = 3, b·2 = 0. Max-sim: 31 + 3 = 34.
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        DocumentIndex own = new DocumentIndex(cluster.schema("doc"), types);
        Document document = new Document(types.getDocumentType("doc"), new DocumentId("id:test:doc::byhand"));
        document.setFieldValue("bits", new TensorFieldValue(Tensor.from("tensor<int8>(dt{},x[4]):{a:[64,3,0,0],b:[0,0,0,1]}")));
        document.setFieldValue("long", new TensorFieldValue(Tensor.from(
                "tensor<int8>(context{},token{},v[4]):{{context:c1,token:a,v:0}:64,{context:c1,token:a,v:1}:3,{context:c1,token:a,v:2}:0,"
                + "{context:c1,token:a,v:3}:0,{context:c2,token:a,v:0}:0,{context:c2,token:a,v:1}:0,{context:c2,token:a,v:2}:0,{context:c2,token:a,v:3}:1}")));
        int lid = own.put(document);
        StringBuilder one = new StringBuilder(), two = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            one.append(i == 0 ? "" : ",").append(i);
            two.append(i == 0 ? "" : ",").append(i < 16 ? 1 : 0);
        }
        ExpressionCompiler compiler = new ExpressionCompiler(profile, null, own, List.of(), new QueryProperties(Map.of(
                "query(qt)", "tensor<float>(qt{},x[32]):{1:[" + one + "],2:[" + two + "]}",
                "query(ql)", "tensor<float>(querytoken{},v[32]):{1:[" + one + "],2:[" + two + "]}"), Map.of()));
        assertEquals(34, compiler.feature("rankingExpression(bitsSim)").number(lid));
        assertEquals(34, compiler.feature("rankingExpression(bitsSimThroughFunction)").number(lid));
        assertEquals(34, compiler.feature("rankingExpression(crossContext)").number(lid));
        // per context: c1 holds only a (30 + 3), c2 only b (31 + 0)
        assertEquals(Tensor.from("tensor<float>(context{}):{c1:33,c2:31}"), compiler.feature("rankingExpression(perContext)").tensor(lid));
        assertEquals(33, compiler.feature("rankingExpression(bestContext)").number(lid));
        assertEquals(0, compiler.feature("rankingExpression(floatSim)").number(lid)); // no float vectors
    }

    /** The reduce to a number a function compiled to (scalar functions are cached). */
    private static SubspaceNode.ReduceAll reduced(Node node) {
        Node inner = node instanceof ScalarNode.Cached cached ? cached.inner() : node;
        return assertInstanceOf(SubspaceNode.ReduceAll.class, inner);
    }

    private static Value evaluate(String expression, MapContext context) {
        try {
            return new RankingExpression(expression).evaluate(context);
        }
        catch (com.yahoo.searchlib.rankingexpression.parser.ParseException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The sum of the magnitudes of the cells. */
    private static double magnitude(Tensor tensor) {
        double sum = 0;
        for (Iterator<Double> values = tensor.valueIterator(); values.hasNext(); ) sum += Math.abs(values.next());
        return sum;
    }

    private static void assertCells(Tensor expected, Tensor actual, double tolerance, String where) {
        assertEquals(expected.type().dimensions(), actual.type().dimensions(), where);
        assertEquals(expected.size(), actual.size(), where);
        for (Iterator<Tensor.Cell> cells = expected.cellIterator(); cells.hasNext(); ) {
            Tensor.Cell cell = cells.next();
            assertTrue(actual.has(cell.getKey()), where + ": " + cell.getKey() + " in " + actual);
            assertEquals(cell.getValue(), actual.get(cell.getKey()), tolerance, where + ": " + cell.getKey());
        }
    }

}
