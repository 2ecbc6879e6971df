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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compiled chunk expressions over a mixed int8 attribute of bit-packed vectors (unpack_bits, the join with a query
 * vector reduced over the indexed dimension, norms, their quotient, top, reduce over the chunks) against searchlib's
 * Java evaluator of the same expressions on the same tensors, over 60 random documents of 0 to 8 chunks (some without
 * the field, some with an all-zero chunk, whose cosine is NaN, or an all-ones one): every cell bit for bit, with its
 * label; an average over the chunks within the rounding of adding its few doubles in another order.
 */
public class MixedTensorCompilerTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field bits type tensor<int8>(part{}, x[4]) { indexing: attribute }
                    field flag type int { indexing: attribute }
                }
                rank-profile chunks {
                    inputs { query(q) tensor<float>(x[32]) }
                    function vectors() { expression: unpack_bits(attribute(bits)) }
                    function little() { expression: unpack_bits(attribute(bits), float, little) }
                    function dots() { expression: reduce(query(q) * vectors(), sum, x) }
                    function littleDots() { expression: reduce(little() * query(q), sum, x) }
                    function length(v) { expression: sqrt(sum(pow(v, 2), x)) }
                    function cosines() { expression: dots() / (length(vectors()) * length(query(q))) }
                    function best3() { expression: top(3, cosines()) }
                    function meanBest3() { expression: reduce(best3(), avg, part) }
                    function best() { expression: reduce(cosines(), max, part) }
                    function worst() { expression: reduce(cosines(), min, part) }
                    function ones() { expression: reduce(vectors(), sum) }
                    function shifted() { expression: 2 * cosines() - 1 + attribute(flag) }
                    first-phase { expression: meanBest3() + best() }
                }
            }
            """;

    /** The functions, and their expressions as Java's evaluator reads them, with the functions written out. */
    private static final Map<String, String> REFERENCE = new LinkedHashMap<>();
    static {
        String vectors = "unpack_bits(attribute(bits))", little = "unpack_bits(attribute(bits), float, little)";
        String dots = "reduce(query(q) * " + vectors + ", sum, x)";
        String cosines = "(" + dots + ") / (sqrt(reduce(pow(" + vectors + ", 2), sum, x)) * sqrt(reduce(pow(query(q), 2), sum, x)))";
        String best3 = "join(" + cosines + ", filter_subspaces(join(cell_order(" + cosines + ", max), 3, f(a,b)(a < b)), f(s)(s)), f(a,b)(a * b))";
        REFERENCE.put("vectors", vectors);
        REFERENCE.put("little", little);
        REFERENCE.put("dots", dots);
        REFERENCE.put("littleDots", "reduce(" + little + " * query(q), sum, x)");
        REFERENCE.put("cosines", cosines);
        REFERENCE.put("best3", best3);
        REFERENCE.put("meanBest3", "reduce(" + best3 + ", avg, part)");
        REFERENCE.put("best", "reduce(" + cosines + ", max, part)");
        REFERENCE.put("worst", "reduce(" + cosines + ", min, part)");
        REFERENCE.put("ones", "reduce(" + vectors + ", sum)");
        REFERENCE.put("shifted", "2 * (" + cosines + ") - 1 + attribute(flag)");
    }

    @TempDir static Path tmp;
    private static ContentClusterConfig cluster;
    private static DocumentIndex index;
    private static RankProfile profile;
    private static final List<Tensor> stored = new ArrayList<>(); // by local id: the document's tensor, null without the field
    private static final List<Integer> flags = new ArrayList<>();

    @BeforeAll
    static void feed() throws Exception {
        cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        DocumentType type = types.getDocumentType("doc");
        index = new DocumentIndex(cluster.schema("doc"), types);
        for (RankProfilesConfig.Rankprofile config : cluster.schema("doc").rankProfiles().rankprofile())
            if (config.name().equals("chunks")) profile = new RankProfile(config);
        Random random = new Random(18);
        TensorType bits = TensorType.fromSpec("tensor<int8>(part{},x[4])");
        for (int d = 0; d < 60; d++) {
            Document document = new Document(type, new DocumentId("id:test:doc::" + d));
            Tensor tensor = null;
            if (d % 7 != 3) {
                Tensor.Builder builder = Tensor.Builder.of(bits);
                int chunks = random.nextInt(9);
                int special = random.nextInt(12); // one all-zero (NaN cosine) or all-ones chunk in some documents
                for (int c = 0; c < chunks; c++) {
                    String label = Integer.toString(random.nextInt(3) == 0 ? c : 10 + 3 * c); // labels in no particular order
                    for (int i = 0; i < 4; i++)
                        builder.cell(TensorAddress.ofLabels(label, Integer.toString(i)),
                                     c == special ? 0 : c == special - 6 ? -1 : random.nextInt(256) - 128);
                }
                tensor = builder.build();
                document.setFieldValue("bits", new TensorFieldValue(tensor));
            }
            int flag = random.nextInt(3);
            document.setFieldValue("flag", new com.yahoo.document.datatypes.IntegerFieldValue(flag));
            int lid = index.put(document);
            while (stored.size() <= lid) { stored.add(null); flags.add(0); }
            stored.set(lid, tensor);
            flags.set(lid, flag);
        }
    }

    private static Tensor query(Random random) {
        StringBuilder cells = new StringBuilder();
        for (int i = 0; i < 32; i++) cells.append(i == 0 ? "" : ",").append((float) (random.nextGaussian()));
        return Tensor.from("tensor<float>(x[32]):[" + cells + "]");
    }

    @Test
    void compiledValuesAreThoseOfJavasEvaluator() {
        Random random = new Random(7);
        for (int round = 0; round < 3; round++) {
            Tensor q = query(random);
            ExpressionCompiler compiler = new ExpressionCompiler(profile, null, index, List.of(),
                    new QueryProperties(Map.of("query(q)", q.toString()), Map.of()));
            Map<String, Node> nodes = new LinkedHashMap<>();
            for (String name : REFERENCE.keySet()) nodes.put(name, compiler.feature("rankingExpression(" + name + ")"));
            compiler.startQuery(0);
            for (var compiled : nodes.entrySet())
                assertFalse(compiled.getValue() instanceof GenericNode, compiled.getKey() + " is compiled");
            assertInstanceOf(SubspaceNode.Top.class, nodes.get("best3"));
            assertInstanceOf(SubspaceNode.UnpackBits.class, nodes.get("little"));

            for (int lid = 1; lid < stored.size(); lid++) {
                MapContext context = new MapContext();
                context.put("query(q)", new TensorValue(q));
                context.put("attribute(bits)", new TensorValue(stored.get(lid) != null ? stored.get(lid)
                                                                : Tensor.Builder.of(TensorType.fromSpec("tensor<int8>(part{},x[4])")).build()));
                context.put("attribute(flag)", new com.yahoo.searchlib.rankingexpression.evaluation.DoubleValue(flags.get(lid)));
                for (var reference : REFERENCE.entrySet()) {
                    Value expected = evaluate(reference.getValue(), context);
                    Node node = nodes.get(reference.getKey());
                    String where = reference.getKey() + " of document " + lid + ": " + stored.get(lid);
                    if (node.type().rank() == 0) {
                        // the average of up to 3 values, added in another order: within the rounding of the additions
                        double tolerance = reference.getKey().equals("meanBest3") && Double.isFinite(expected.asDouble())
                                           ? 2 * Math.ulp(largest(evaluate(REFERENCE.get("best3"), context).asTensor())) : 0;
                        assertEquals(expected.asDouble(), node.number(lid), tolerance, where);
                    }
                    else {
                        assertCells(expected.asTensor(), node.tensor(lid), where);
                    }
                }
            }
        }
    }

    @Test
    void bitsWorkedOutByHand() throws Exception {
        // part a: bytes 0x40, 0x03, 0, 0. Big endian (the most significant bit first): bits at x 1, 14, 15;
        // little endian: x 6, 8, 9. Part b: bytes 0, 0, 0, 1: x 31, or 24. With q[x] = x, |q|² = 0² + ... + 31² = 10416.
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        DocumentIndex own = new DocumentIndex(cluster.schema("doc"), types);
        Document document = new Document(types.getDocumentType("doc"), new DocumentId("id:test:doc::byhand"));
        document.setFieldValue("bits", new TensorFieldValue(Tensor.from("tensor<int8>(part{},x[4]):{a:[64,3,0,0],b:[0,0,0,1]}")));
        int lid = own.put(document);
        StringBuilder cells = new StringBuilder();
        for (int i = 0; i < 32; i++) cells.append(i == 0 ? "" : ",").append(i);
        ExpressionCompiler compiler = new ExpressionCompiler(profile, null, own, List.of(),
                new QueryProperties(Map.of("query(q)", "tensor<float>(x[32]):[" + cells + "]"), Map.of()));
        double norm = Math.sqrt(10416);
        Tensor vectors = compiler.feature("rankingExpression(vectors)").tensor(lid);
        for (int x = 0; x < 32; x++) {
            assertEquals(x == 1 || x == 14 || x == 15 ? 1.0 : 0.0, vectors.get(TensorAddress.ofLabels("a", Integer.toString(x))), "a, x " + x);
            assertEquals(x == 31 ? 1.0 : 0.0, vectors.get(TensorAddress.ofLabels("b", Integer.toString(x))), "b, x " + x);
        }
        assertEquals(Tensor.from("tensor<float>(part{}):{a:30,b:31}"), compiler.feature("rankingExpression(dots)").tensor(lid));
        assertEquals(Tensor.from("tensor<float>(part{}):{a:23,b:24}"), compiler.feature("rankingExpression(littleDots)").tensor(lid));
        double a = 30 / (Math.sqrt(3) * norm), b = 31 / norm;
        assertEquals(b, compiler.feature("rankingExpression(best)").number(lid), 1e-12);
        assertEquals(a, compiler.feature("rankingExpression(worst)").number(lid), 1e-12);
        assertEquals((a + b) / 2, compiler.feature("rankingExpression(meanBest3)").number(lid), 1e-12);
        assertEquals(4, compiler.feature("rankingExpression(ones)").number(lid));
    }

    private static Value evaluate(String expression, MapContext context) {
        try {
            return new RankingExpression(expression).evaluate(context);
        }
        catch (com.yahoo.searchlib.rankingexpression.parser.ParseException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static double largest(Tensor tensor) {
        double largest = 0;
        for (Iterator<Double> values = tensor.valueIterator(); values.hasNext(); ) largest = Math.max(largest, Math.abs(values.next()));
        return largest;
    }

    private static void assertCells(Tensor expected, Tensor actual, String where) {
        assertEquals(expected.type().dimensions(), actual.type().dimensions(), where);
        assertEquals(expected.size(), actual.size(), where);
        for (Iterator<Tensor.Cell> cells = expected.cellIterator(); cells.hasNext(); ) {
            Tensor.Cell cell = cells.next();
            assertTrue(actual.has(cell.getKey()), where + ": " + cell.getKey() + " in " + actual);
            assertEquals(cell.getValue(), actual.get(cell.getKey()), 0, where + ": " + cell.getKey());
        }
    }

}
