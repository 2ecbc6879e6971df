package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.group.GroupingBlob;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.vespa.model.VespaModel;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DataType;
import com.yahoo.document.MapDataType;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.PositionDataType;
import com.yahoo.document.datatypes.BoolFieldValue;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.MapFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.search.grouping.request.GroupingOperation;
import com.yahoo.search.grouping.vespa.GroupingExecutor;
import com.yahoo.searchlib.aggregation.AggregationResult;
import com.yahoo.searchlib.aggregation.AverageAggregationResult;
import com.yahoo.searchlib.aggregation.CountAggregationResult;
import com.yahoo.searchlib.aggregation.ExpressionCountAggregationResult;
import com.yahoo.searchlib.aggregation.MaxAggregationResult;
import com.yahoo.searchlib.aggregation.MinAggregationResult;
import com.yahoo.searchlib.aggregation.QuantileAggregationResult;
import com.yahoo.searchlib.aggregation.StandardDeviationAggregationResult;
import com.yahoo.searchlib.aggregation.SumAggregationResult;
import com.yahoo.searchlib.aggregation.XorAggregationResult;
import com.yahoo.searchlib.expression.FloatBucketResultNode;
import com.yahoo.searchlib.expression.FloatResultNode;
import com.yahoo.searchlib.expression.IntegerBucketResultNode;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.aggregation.Group;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.searchlib.aggregation.HitsAggregationResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Grouping on the content engine: requests built by container-search's own RequestBuilder, results of three
 * nodes merged with searchlib's Grouping.merge and postMerge as the container merges them.
 */
public class GroupingTest {

    /** A comment with multi-value fields this test adds to the schema: tags (an array), props (a map) and a bool. */
    private record Comment(String id, String article, String author, int upvotes, List<String> tags, Map<String, String> props, boolean flagged) {
        Comment(String id, String article, String author, int upvotes) {
            this(id, article, author, upvotes, TAGS.get(id), PROPS.get(id), upvotes % 2 == 1);
        }
    }

    // g2 holds "x" twice, g4 and g7 no tags; g4 has no props, g5 no "mood"
    private static final Map<String, List<String>> TAGS = Map.of(
            "g0", List.of("x", "y"), "g1", List.of("y"), "g2", List.of("x", "z", "x"), "g3", List.of("z"), "g4", List.of(),
            "g5", List.of("y", "z"), "g6", List.of("x"), "g7", List.of(), "g8", List.of("w", "x", "y"));
    private static final Map<String, Map<String, String>> PROPS = Map.of(
            "g0", Map.of("mood", "happy", "lang", "en"), "g1", Map.of("mood", "sad"), "g2", Map.of("mood", "happy", "lang", "no"),
            "g3", Map.of("lang", "en", "mood", "hazy"), "g4", Map.of(), "g5", Map.of("lang", "no"),
            "g6", Map.of("mood", "sad", "lang", "en"), "g7", Map.of("mood", "happy"), "g8", Map.of("lang", "de", "mood", "happy"));

    /** Positions (x, y: longitude and latitude in microdegrees); g4 has none, g5 is at the extremes of x and y. */
    private static final Map<String, int[]> SPOTS = Map.of(
            "g0", new int[] { 10, 20 }, "g1", new int[] { -122419400, 37774900 }, "g2", new int[] { 10, 20 }, "g3", new int[] { 10, -5 },
            "g5", new int[] { Integer.MAX_VALUE, Integer.MIN_VALUE }, "g6", new int[] { -1, -1 }, "g7", new int[] { 0, 0 },
            "g8", new int[] { -122419400, 59913900 });
    /** Ascending arrays for interpolatedlookup (g4 empty). */
    private static final Map<String, double[]> STEPS = Map.of(
            "g0", new double[] { 0, 2, 4 }, "g1", new double[] { 0, 2, 4 }, "g2", new double[] { 2, 6 }, "g3", new double[] { 5, 10 },
            "g4", new double[] {}, "g5", new double[] { 1.5 }, "g6", new double[] { 0, 4, 8, 16 }, "g7", new double[] { 0, 4, 8, 16 },
            "g8", new double[] { 1, 2, 3 });
    /** Arrays for array.at (g2 and g5 empty). */
    private static final Map<String, int[]> SIZES = Map.of(
            "g0", new int[] { 10, 20, 30 }, "g1", new int[] { 7 }, "g2", new int[] {}, "g3", new int[] { 1, 2 }, "g4", new int[] { 5, 6, 7, 8 },
            "g5", new int[] {}, "g6", new int[] { 3 }, "g7", new int[] { 9, 9 }, "g8", new int[] { 4, 40, 400 });

    private static final List<Comment> comments = List.of(
            new Comment("g0", "a", "ann", 1), new Comment("g1", "a", "bob", 9), new Comment("g2", "b", "ann", 3),
            new Comment("g3", "a", "ann", 4), new Comment("g4", "c", "cy", 0), new Comment("g5", "b", "bob", 2),
            new Comment("g6", "a", "dan", 5), new Comment("g7", "c", "ann", 7), new Comment("g8", "a", "bob", 6));

    private static ContentNode[] nodes;
    private static Path packageCopy;

    /** dwell's package with tags, props and flagged added to the comment document, for grouping on multi-value attributes. */
    private static Path packageWithMultiValueFields() throws java.io.IOException {
        packageCopy = Files.createTempDirectory("dwell-grouping");
        Path copy = DwellPackage.copyTo(packageCopy.resolve("application"));
        Path schema = copy.resolve("schemas/comment.sd");
        String text = Files.readString(schema);
        int at = text.indexOf('{', text.indexOf("document comment"));
        Files.writeString(schema, text.substring(0, at + 1) + """

                        field tags type array<string> {
                            indexing: attribute
                        }
                        field props type map<string, string> {
                            indexing: summary
                            struct-field key { indexing: attribute }
                            struct-field value { indexing: attribute }
                        }
                        field flagged type bool {
                            indexing: attribute
                        }
                        field spot type position {
                            indexing: attribute
                        }
                        field steps type array<double> {
                            indexing: attribute
                        }
                        field sizes type array<int> {
                            indexing: attribute
                        }
                """ + text.substring(at + 1));
        return copy;
    }

    @BeforeAll
    static void setUp() throws java.io.IOException {
        Path app = packageWithMultiValueFields();
        VespaModel model = DwellPackage.model(app);
        ContentClusterConfig cluster = ContentClusterConfigs.from(model, "dwell", app);
        IlscriptsConfig scripts = model.getConfig(IlscriptsConfig.class, "dwell_container/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor");
        IndexingScripts indexing = new IndexingScripts(scripts, new DocumentTypeManager(cluster.documentManager()), new SimpleLinguistics(), DwellPackage.embedders());
        DocumentTypeManager types = indexing.documentTypes();
        nodes = new ContentNode[] { new ContentNode(cluster, 0), new ContentNode(cluster, 1), new ContentNode(cluster, 2) };
        int i = 0;
        for (Comment c : comments) {
            Document doc = new Document(types.getDocumentType("comment"), new DocumentId("id:dwell:comment::" + c.id()));
            doc.setFieldValue("comment_id", new StringFieldValue(c.id()));
            doc.setFieldValue("article_id", new StringFieldValue(c.article()));
            doc.setFieldValue("author_id", new StringFieldValue(c.author()));
            doc.setFieldValue("parent_id", new StringFieldValue("thread"));
            doc.setFieldValue("text", new StringFieldValue("comment " + c.id()));
            doc.setFieldValue("created_at", new LongFieldValue(created(i)));
            doc.setFieldValue("upvotes", new IntegerFieldValue(c.upvotes()));
            doc.setFieldValue("uppercase_ratio", new FloatFieldValue(ratio(c)));
            Array<StringFieldValue> tags = new Array<>(DataType.getArray(DataType.STRING));
            for (String tag : c.tags()) tags.add(new StringFieldValue(tag));
            doc.setFieldValue("tags", tags);
            MapFieldValue<StringFieldValue, StringFieldValue> props = new MapFieldValue<>(new MapDataType(DataType.STRING, DataType.STRING));
            for (Map.Entry<String, String> p : new TreeMap<>(c.props()).entrySet()) props.put(new StringFieldValue(p.getKey()), new StringFieldValue(p.getValue()));
            doc.setFieldValue("props", props);
            doc.setFieldValue("flagged", new BoolFieldValue(c.flagged()));
            if (SPOTS.containsKey(c.id())) doc.setFieldValue("spot", PositionDataType.valueOf(SPOTS.get(c.id())[0], SPOTS.get(c.id())[1]));
            Array<DoubleFieldValue> steps = new Array<>(DataType.getArray(DataType.DOUBLE));
            for (double step : STEPS.get(c.id())) steps.add(new DoubleFieldValue(step));
            doc.setFieldValue("steps", steps);
            Array<IntegerFieldValue> sizes = new Array<>(DataType.getArray(DataType.INT));
            for (int size : SIZES.get(c.id())) sizes.add(new IntegerFieldValue(size));
            doc.setFieldValue("sizes", sizes);
            nodes[i++ % 3].put(indexing.process(doc));
        }
    }

    /** Seconds since 1970 of comment i: from 2006-09-06 09:00 UTC on, 13 hours and 7 minutes apart. */
    static long created(int i) { return 1157533200L + i * (13 * 3600L + 7 * 60); }

    /** A float per comment, exact in a float: upvotes / 8 + 1/16. */
    static float ratio(Comment c) { return c.upvotes() / 8f + 1 / 16f; }

    @AfterAll
    static void tearDown() throws java.io.IOException {
        for (ContentNode node : nodes) node.close();
        ai.dwell.runtime.serve.deploy.PackageFiles.deleteRecursively(packageCopy);
    }

    @Test
    void countsPerArticle() {
        Group root = group("all(group(article_id) each(output(count())))");
        assertEquals(counts(Comment::article), childCounts(root));
    }

    @Test
    void topAuthorsByCount() {
        // Nodes return max + 1 groups (precision), so that the container knows there are more; it shows max
        Map<String, Long> top = childCounts(group("all(group(author_id) max(2) order(-count()) each(output(count())))"));
        Map<String, Long> all = counts(Comment::author);
        assertEquals(3, top.size());
        assertEquals(all.get("ann"), top.get("ann"));
        assertEquals(all.get("bob"), top.get("bob"));
    }

    @Test
    void nestedLevelsAndIntegerValues() {
        Group root = group("all(group(article_id) each(output(count()) all(group(author_id) each(output(count())))))");
        Group a = root.getChildren().stream().filter(g -> g.getId().getString().equals("a")).findFirst().orElseThrow();
        assertEquals(Map.of("ann", 2L, "bob", 2L, "dan", 1L), childCounts(a));
        Map<String, Long> byUpvotes = childCounts(group("all(group(upvotes) each(output(count())))"));
        assertEquals(comments.size(), byUpvotes.size());
        assertEquals(1L, byUpvotes.get("9"));
    }

    @Test
    void summaryHitsPerGroup() {
        Group root = group("all(group(article_id) each(max(2) each(output(summary()))))");
        for (Group article : root.getChildren()) {
            HitsAggregationResult hits = (HitsAggregationResult) article.getAggregationResults().stream()
                    .filter(r -> r instanceof HitsAggregationResult).findFirst().orElseThrow();
            long expected = Math.min(3, counts(Comment::article).get(article.getId().getString())); // max + 1, as groups
            assertEquals(expected, hits.getHits().size());
        }
    }

    @Test
    void unsupportedAggregatorIsAnErrorNamingIt() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("all(group(article_id) each(output(sum(md5(author_id, 64)))))"));
        assertEquals(1, reply.getErrorsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("SumAggregationResult of a raw value"), reply.getErrors(0).getMessage());
        reply = nodes[0].search(request("all(group(article_id) each(output(sum(author_id))))"));
        assertEquals(0, reply.getErrorsCount(), "a sum of strings is proton's sum of their leading numbers, 0 here");
    }


    @Test
    void sumAverageMinMaxXorAndStandardDeviationPerArticle() {
        Group root = group("all(group(article_id) each(output(count(), sum(upvotes), avg(upvotes), min(upvotes), max(upvotes), " +
                           "xor(upvotes), stddev(upvotes))))");
        Map<String, List<Integer>> votes = comments.stream().collect(Collectors.groupingBy(Comment::article, TreeMap::new,
                Collectors.mapping(Comment::upvotes, Collectors.toList())));
        assertEquals(List.copyOf(votes.keySet()), root.getChildren().stream().map(g -> g.getId().getString()).toList());
        for (Group article : root.getChildren()) {
            List<Integer> v = votes.get(article.getId().getString());
            long sum = v.stream().mapToLong(x -> x).sum();
            double mean = (double) sum / v.size();
            double deviation = Math.sqrt(v.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / v.size());
            long xor = v.stream().mapToLong(x -> x).reduce(0, (a, b) -> a ^ b);
            SumAggregationResult sumResult = result(article, SumAggregationResult.class);
            assertEquals(IntegerResultNode.class, sumResult.getSum().getClass()); // an integer sum is a long, as proton's
            assertEquals(sum, sumResult.getSum().getInteger());
            AverageAggregationResult average = result(article, AverageAggregationResult.class);
            assertEquals(v.size(), average.getCount());
            assertEquals(mean, average.getAverage().getFloat(), 1e-12);
            assertEquals(v.stream().mapToLong(x -> x).min().orElseThrow(), result(article, MinAggregationResult.class).getMin().getInteger());
            assertEquals(v.stream().mapToLong(x -> x).max().orElseThrow(), result(article, MaxAggregationResult.class).getMax().getInteger());
            assertEquals(xor, result(article, XorAggregationResult.class).getXor());
            assertEquals(deviation, result(article, StandardDeviationAggregationResult.class).getStandardDeviation(), 1e-9);
        }
        // a: 1 9 4 5 6 -> sum 25, xor 1^9 = 8, ^4 = 12, ^5 = 9, ^6 = 15 (hand-computed)
        Group a = root.getChildren().get(0);
        assertEquals(25, result(a, SumAggregationResult.class).getSum().getInteger());
        assertEquals(15, result(a, XorAggregationResult.class).getXor());
    }

    /** quantiles: each node's KLL sketch of the group's values, merged as the container merges them; exact for groups this small. */
    @Test
    void quantilesPerAuthor() {
        List<Double> quantiles = List.of(0.0, 0.25, 0.5, 0.75, 1.0);
        Group root = group("all(group(author_id) each(output(quantiles([0, 0.25, 0.5, 0.75, 1], upvotes))))");
        assertEquals(counts(Comment::author).keySet(), Set.copyOf(ids(root)));
        for (Group author : root.getChildren()) {
            long[] sorted = comments.stream().filter(c -> c.author().equals(author.getId().getString()))
                                    .mapToLong(Comment::upvotes).sorted().toArray();
            QuantileAggregationResult result = result(author, QuantileAggregationResult.class);
            assertEquals(quantiles, result.getQuantiles());
            List<Double> expected = quantiles.stream() // the least value with at least q of the values at or below it
                    .map(q -> (double) sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)]).toList();
            assertEquals(expected, result.getQuantileResults().entries().stream().map(e -> e.value()).toList(), author.getId().getString());
        }
    }

    @Test
    void aggregatesOfArithmeticAndFloatExpressions() {
        Group root = group("all(group(author_id) each(output(sum(mul(upvotes, sub(1, uppercase_ratio))), " +
                           "max(uppercase_ratio), sum(div(upvotes, 2)), sum(mod(upvotes, 3)), min(neg(upvotes)))))");
        for (Group author : root.getChildren()) {
            List<Comment> own = comments.stream().filter(c -> c.author().equals(author.getId().getString())).toList();
            List<SumAggregationResult> sums = results(author, SumAggregationResult.class);
            assertEquals(FloatResultNode.class, sums.get(0).getSum().getClass());
            assertEquals(own.stream().mapToDouble(c -> c.upvotes() * (1 - (double) ratio(c))).sum(), sums.get(0).getSum().getFloat(), 1e-9);
            assertEquals(own.stream().mapToDouble(c -> ratio(c)).max().orElseThrow(), result(author, MaxAggregationResult.class).getMax().getFloat(), 0);
            assertEquals(own.stream().mapToLong(c -> c.upvotes() / 2).sum(), sums.get(1).getSum().getInteger()); // integer division
            assertEquals(own.stream().mapToLong(c -> c.upvotes() % 3).sum(), sums.get(2).getSum().getInteger());
            assertEquals(-own.stream().mapToLong(Comment::upvotes).max().orElseThrow(), result(author, MinAggregationResult.class).getMin().getInteger());
        }
    }

    @Test
    void orderByAnAggregateWithMax() {
        // sums per author: ann 1+3+4+7 = 15, bob 9+2+6 = 17, cy 0, dan 5. The merged result holds max + 1 groups
        // (the precision the container asks for, so it knows there are more), in id order; the container shows max
        Group top = group("all(group(author_id) max(2) order(-sum(upvotes)) each(output(sum(upvotes))))");
        assertEquals(List.of("ann", "bob", "dan"), ids(top));
        assertEquals(17, result(top.getChildren().get(1), SumAggregationResult.class).getSum().getInteger());
        Group bottom = group("all(group(author_id) max(2) order(sum(upvotes)) each(output(count())))");
        assertEquals(List.of("ann", "cy", "dan"), ids(bottom));
        // max(upvotes) * count(): ann 7 * 4 = 28, bob 9 * 3 = 27, dan 5, cy 0
        assertEquals(List.of("ann", "bob"), ids(group("all(group(author_id) max(1) order(-max(upvotes) * count()) each(output(count())))")));
        // averages: bob 17 / 3, dan 5, ann 15 / 4, cy 0
        assertEquals(List.of("bob", "dan"), ids(group("all(group(author_id) max(1) order(-avg(upvotes)) each(output(avg(upvotes))))")));
    }

    @Test
    void nestedGroupsWithAggregatesOnEachLevel() {
        Group root = group("all(group(article_id) each(output(sum(upvotes)) all(group(author_id) max(2) precision(10) order(-sum(upvotes)) " +
                           "each(max(1) output(max(upvotes), count(), sum(upvotes)) each(output(summary()))))))");
        for (Group article : root.getChildren()) {
            String id = article.getId().getString();
            List<Comment> own = comments.stream().filter(c -> c.article().equals(id)).toList();
            assertEquals(own.stream().mapToLong(Comment::upvotes).sum(), result(article, SumAggregationResult.class).getSum().getInteger());
            Map<String, Integer> maxima = own.stream().collect(Collectors.toMap(Comment::author, Comment::upvotes, Math::max, TreeMap::new));
            Map<String, Integer> found = new TreeMap<>();
            for (Group author : article.getChildren())
                found.put(author.getId().getString(), (int) result(author, MaxAggregationResult.class).getMax().getInteger());
            assertEquals(maxima, found);
        }
    }

    @Test
    void maxOfAllBeforeGroupingIsTopHitsPerNode() {
        // all(max(2) ...) is the request's topN, which proton applies per node: each of the three nodes (three
        // comments each) groups its two best hits, so the merged counts sum to 6, not 9
        Group root = group("all(max(2) all(group(article_id) each(output(count()))))");
        assertEquals(6L, childCounts(root).values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    void levelFilters() {
        // not ann, and upvotes in [3, 9): bob 6, dan 5 (cy 0 and bob 9, 2 out of range); the articles still count all
        Group root = group("all(group(article_id) each(output(count()) all(group(author_id) " +
                           "filter(not regex(\"ann\", author_id) and range(3, 9, upvotes)) each(output(sum(upvotes))))))");
        Map<String, Long> sums = new TreeMap<>();
        for (Group article : root.getChildren())
            for (Group author : article.getChildren())
                sums.merge(article.getId().getString() + "/" + author.getId().getString(), result(author, SumAggregationResult.class).getSum().getInteger(), Long::sum);
        assertEquals(Map.of("a/bob", 6L, "a/dan", 5L), sums);
        assertEquals(counts(Comment::article), childCounts(root));
        // a full match: "b.b" matches bob, "b" matches nothing, an or of both
        assertEquals(Map.of("bob", 3L), childCounts(group("all(group(author_id) filter(regex(\"b.b\", author_id)) each(output(count())))")));
        assertEquals(Map.of(), childCounts(group("all(group(author_id) filter(regex(\"b\", author_id)) each(output(count())))")));
        assertEquals(Map.of("bob", 3L, "cy", 1L), childCounts(group("all(group(author_id) filter(regex(\"b\", author_id) or regex(\"b.b|c.\", author_id)) each(output(count())))")));
    }

    @Test
    void timeParts() {
        Map<String, Long> dates = new TreeMap<>(), hours = new TreeMap<>(), weekdays = new TreeMap<>();
        for (int i = 0; i < comments.size(); i++) {
            java.time.ZonedDateTime t = java.time.Instant.ofEpochSecond(created(i)).atZone(java.time.ZoneOffset.UTC);
            dates.merge(t.getYear() + "-" + t.getMonthValue() + "-" + t.getDayOfMonth(), 1L, Long::sum);
            hours.merge(String.valueOf(t.getHour()), 1L, Long::sum);
            weekdays.merge(String.valueOf(t.getDayOfWeek().getValue() % 7), 1L, Long::sum); // 0 is Sunday
        }
        assertEquals(dates, new TreeMap<>(childCounts(group("all(group(time.date(created_at)) each(output(count())))"))));
        assertEquals(hours, new TreeMap<>(childCounts(group("all(group(time.hourofday(created_at)) each(output(count())))"))));
        assertEquals(weekdays, new TreeMap<>(childCounts(group("all(group(time.dayofweek(created_at)) each(output(count())))"))));
        // 2006-09-06 09:00 UTC is the first: group ids of time.year and time.monthofyear
        Group years = group("all(group(time.year(created_at)) each(output(count()) all(group(time.monthofyear(created_at)) each(output(count())))))");
        assertEquals(2006, years.getChildren().get(0).getId().getInteger());
        assertEquals(9, years.getChildren().get(0).getChildren().get(0).getId().getInteger());
    }

    @Test
    void fixedWidthAndPredefinedBuckets() {
        Group fixed = group("all(group(fixedwidth(upvotes, 3)) each(output(count(), sum(upvotes))))");
        Map<Long, Long> expected = comments.stream().collect(Collectors.groupingBy(c -> c.upvotes() / 3 * 3L, TreeMap::new, Collectors.counting()));
        Map<Long, Long> found = new TreeMap<>();
        for (Group bucket : fixed.getChildren()) {
            IntegerBucketResultNode id = (IntegerBucketResultNode) bucket.getId();
            assertEquals(id.getFrom() + 3, id.getTo());
            found.put(id.getFrom(), result(bucket, CountAggregationResult.class).getCount());
        }
        assertEquals(expected, found);
        Group predefined = group("all(group(predefined(upvotes, bucket(0, 3), bucket(3, 6), bucket(6, inf))) each(output(count())))");
        // 0 1 2 | 3 4 5 | 6 7 9
        assertEquals(List.of(3L, 3L, 3L), predefined.getChildren().stream().map(g -> result(g, CountAggregationResult.class).getCount()).toList());
        assertEquals(3, ((IntegerBucketResultNode) predefined.getChildren().get(1).getId()).getFrom());
        Group strings = group("all(group(predefined(author_id, bucket(-inf, \"bob\"), bucket[\"bob\"], bucket<\"bob\", inf>)) each(output(count())))");
        assertEquals(List.of(4L, 3L, 2L), strings.getChildren().stream().map(g -> result(g, CountAggregationResult.class).getCount()).toList());
        Group floats = group("all(group(fixedwidth(uppercase_ratio, 0.5)) each(output(count())))");
        Map<Double, Long> floatBuckets = comments.stream().collect(Collectors.groupingBy(c -> Math.floor(ratio(c) / 0.5) * 0.5, TreeMap::new, Collectors.counting()));
        assertEquals(floatBuckets.keySet().stream().toList(), floats.getChildren().stream().map(g -> ((FloatBucketResultNode) g.getId()).getFrom()).toList());
    }

    @Test
    void countOfGroupsIsMergedFromEachNodesSketch() {
        // every article and author is on several of the three nodes: the merged sketch counts each once
        Group root = group("all(group(author_id) output(count()) each(output(count())))");
        ExpressionCountAggregationResult authors = result(root, ExpressionCountAggregationResult.class);
        assertEquals(counts(Comment::author).size(), authors.getEstimatedUniqueCount());
        assertEquals(4, authors.getEstimatedUniqueCount()); // ann, bob, cy, dan
        // per article, the number of its authors' groups: a ann bob dan, b ann bob, c cy ann
        Group articles = group("all(group(article_id) each(all(group(author_id) output(count()) each(output(count())))))");
        Map<String, Long> authorsPerArticle = new TreeMap<>();
        for (Group article : articles.getChildren())
            authorsPerArticle.put(article.getId().getString(), result(article, ExpressionCountAggregationResult.class).getEstimatedUniqueCount());
        Map<String, Long> expected = comments.stream().collect(Collectors.groupingBy(Comment::article, TreeMap::new,
                Collectors.collectingAndThen(Collectors.mapping(Comment::author, Collectors.toSet()), set -> (long) set.size())));
        assertEquals(expected, authorsPerArticle);
        assertEquals(Map.of("a", 3L, "b", 2L, "c", 2L), authorsPerArticle);
        // of buckets and of integer values: upvotes 0..9 in buckets of 3 (0 3 6 9), 9 distinct values
        assertEquals(4, result(group("all(group(fixedwidth(upvotes, 3)) output(count()) each(output(count())))"),
                               ExpressionCountAggregationResult.class).getEstimatedUniqueCount());
        assertEquals(comments.stream().map(Comment::upvotes).distinct().count(),
                     result(group("all(group(upvotes) output(count()) each(output(count())))"), ExpressionCountAggregationResult.class).getEstimatedUniqueCount());
    }

    @Test
    void multiValueAttributesGiveOneGroupPerElement() {
        Map<String, Long> expected = new TreeMap<>();
        for (Comment c : comments) for (String tag : c.tags()) expected.merge(tag, 1L, Long::sum); // g2's two x count twice
        assertEquals(Map.of("w", 1L, "x", 5L, "y", 4L, "z", 3L), expected);
        assertEquals(expected, new TreeMap<>(childCounts(group("all(group(tags) each(output(count())))"))));
        // sums over the elements' groups, nested below an article, and a filter on the element
        Group root = group("all(group(article_id) each(all(group(tags) filter(not regex(\"w\", tags)) each(output(count(), sum(upvotes))))))");
        Map<String, Long> sums = new TreeMap<>(), found = new TreeMap<>();
        for (Comment c : comments) for (String tag : c.tags()) if ( ! tag.equals("w")) sums.merge(c.article() + "/" + tag, (long) c.upvotes(), Long::sum);
        for (Group article : root.getChildren())
            for (Group tag : article.getChildren())
                found.put(article.getId().getString() + "/" + tag.getId().getString(), result(tag, SumAggregationResult.class).getSum().getInteger());
        assertEquals(sums, found);
    }

    @Test
    void mapKeysAndValuesGroupedTogetherAndLookedUp() {
        // group(props.key) binds the struct props to the key's element, so props.value below is the value of that key
        Group root = group("all(group(props.key) each(output(count()) all(group(props.value) each(output(count())))))");
        Map<String, Long> pairs = new TreeMap<>(), expected = new TreeMap<>();
        for (Comment c : comments) for (var p : c.props().entrySet()) expected.merge(p.getKey() + "=" + p.getValue(), 1L, Long::sum);
        for (Group key : root.getChildren())
            for (Group value : key.getChildren())
                pairs.put(key.getId().getString() + "=" + value.getId().getString(), result(value, CountAggregationResult.class).getCount());
        assertEquals(expected, pairs);
        assertEquals(4L, pairs.get("mood=happy"));
        // props{"mood"}: the value of the key, "" where a document has none (g4, g5)
        Map<String, Long> moods = comments.stream().collect(Collectors.groupingBy(c -> c.props().getOrDefault("mood", ""), TreeMap::new, Collectors.counting()));
        assertEquals(moods, new TreeMap<>(childCounts(group("all(group(props{\"mood\"}) each(output(count())))"))));
        assertEquals(2L, moods.get(""));
        // the guide's filter on a map lookup: documents whose mood starts with "ha" (happy, hazy), per author
        Map<String, Long> filtered = comments.stream().filter(c -> c.props().getOrDefault("mood", "").startsWith("ha"))
                .collect(Collectors.groupingBy(Comment::author, TreeMap::new, Collectors.counting()));
        assertEquals(filtered, new TreeMap<>(childCounts(group("all(group(author_id) filter(regex(\"ha.*\", props{\"mood\"})) each(output(count())))"))));
        // a lookup with the key from another attribute: props{author_id} (no comment has its author as a key)
        assertEquals(Map.of("", (long) comments.size()), childCounts(group("all(group(props{author_id}) each(output(count())))")));
    }

    @Test
    void isTrueFilterOnABoolAttribute() {
        Map<String, Long> odd = comments.stream().filter(Comment::flagged)
                .collect(Collectors.groupingBy(Comment::author, TreeMap::new, Collectors.counting()));
        assertEquals(Map.of("ann", 3L, "bob", 1L, "dan", 1L), odd); // upvotes 1 3 7, 9, 5
        assertEquals(odd, new TreeMap<>(childCounts(group("all(group(author_id) filter(istrue(flagged)) each(output(count())))"))));
        assertEquals(Map.of("bob", 2L, "cy", 1L, "ann", 1L), childCounts(group("all(group(author_id) filter(not istrue(flagged)) each(output(count())))")));
        SearchProtocol.SearchReply reply = nodes[0].search(request("all(group(author_id) filter(istrue(upvotes)) each(output(count())))"));
        assertEquals(1, reply.getErrorsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("istrue() requires input to be type bool"), reply.getErrors(0).getMessage());
    }

    @Test
    void xorOfMd5OfCatIsOfTheBytesProtonConcatenates() throws Exception {
        // the guide's xor(md5(cat(...), 64)): the author's UTF-8 bytes then upvotes, an int attribute, as 4 bytes
        // big-endian; the md5's first 8 bytes as a big-endian long, xor-ed over the article's comments
        Group root = group("all(group(article_id) each(output(xor(md5(cat(author_id, upvotes), 64)))))");
        Map<String, Long> expected = new TreeMap<>(), found = new TreeMap<>();
        for (Comment c : comments) {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            bytes.writeBytes(c.author().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            bytes.writeBytes(java.nio.ByteBuffer.allocate(4).putInt(c.upvotes()).array());
            byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(bytes.toByteArray());
            expected.merge(c.article(), java.nio.ByteBuffer.wrap(md5, 0, 8).getLong(), (a, b) -> a ^ b);
        }
        for (Group article : root.getChildren()) found.put(article.getId().getString(), result(article, XorAggregationResult.class).getXor());
        assertEquals(expected, found);
        // created_at is a long: 8 bytes; a float attribute as a double's 8 bytes; a constant integer as 8
        Group longs = group("all(group(article_id) each(output(xor(md5(cat(created_at, uppercase_ratio, 7), 64)))))");
        expected.clear();
        for (int i = 0; i < comments.size(); i++) {
            Comment c = comments.get(i);
            byte[] bytes = java.nio.ByteBuffer.allocate(24).putLong(created(i)).putDouble(ratio(c)).putLong(7).array();
            byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(bytes);
            expected.merge(c.article(), java.nio.ByteBuffer.wrap(md5, 0, 8).getLong(), (a, b) -> a ^ b);
        }
        found.clear();
        for (Group article : longs.getChildren()) found.put(article.getId().getString(), result(article, XorAggregationResult.class).getXor());
        assertEquals(expected, found);
    }

    @Test
    void normalizeSubjectStripsOneReplyOrForwardPrefix() {
        assertEquals(counts(Comment::author), new TreeMap<>(childCounts(group("all(group(normalizesubject(strcat(\"Re: \", author_id))) each(output(count())))"))));
        assertEquals(counts(Comment::author), new TreeMap<>(childCounts(group("all(group(normalizesubject(strcat(\"FWD: \", author_id))) each(output(count())))"))));
        Map<String, Long> once = childCounts(group("all(group(normalizesubject(strcat(\"Fw: Re: \", author_id))) each(output(count())))"));
        assertEquals(Set.of("Re: ann", "Re: bob", "Re: cy", "Re: dan"), once.keySet()); // one prefix only
        Map<String, Long> kept = childCounts(group("all(group(normalizesubject(strcat(\"re: \", author_id))) each(output(count())))"));
        assertEquals(Set.of("re: ann", "re: bob", "re: cy", "re: dan"), kept.keySet()); // the R must be upper case
    }

    @Test
    void ucaSortKeysGroupAndOrder() {
        // one group per author, its id the sort key's bytes; ordered by the max of the keys, merged over the nodes
        Group keys = group("all(group(uca(author_id, \"sv\")) each(output(count())))");
        assertEquals(List.of(4L, 3L, 1L, 1L), keys.getChildren().stream().map(g -> result(g, CountAggregationResult.class).getCount()).toList()); // ann bob cy dan
        assertTrue(keys.getChildren().stream().allMatch(g -> g.getId() instanceof com.yahoo.searchlib.expression.RawResultNode));
        Group ordered = group("all(group(author_id) max(2) order(-max(uca(author_id, \"sv\"))) each(output(count())))");
        assertEquals(List.of("bob", "cy", "dan"), ids(ordered)); // max + 1 groups kept, in id order: the last three by key
    }

    @Test
    void zcurveDecodesThePositionsCoordinates() {
        // spot_zcurve is the position's z-order code (x in the even bits, y in the odd); g4 has no position, so the
        // attribute's undefined value (Long.MIN_VALUE, only bit 63 set) gives x 0 and y Integer.MIN_VALUE, as proton
        assertEquals(Map.of(10L, 3L, -122419400L, 2L, 0L, 2L, (long) Integer.MAX_VALUE, 1L, -1L, 1L),
                     numericCounts(group("all(group(zcurve.x(spot_zcurve)) each(output(count())))")));
        assertEquals(Map.of(20L, 2L, 37774900L, 1L, -5L, 1L, (long) Integer.MIN_VALUE, 2L, -1L, 1L, 0L, 1L, 59913900L, 1L),
                     numericCounts(group("all(group(zcurve.y(spot_zcurve)) each(output(count())))")));
        // a sum per article of x: a (g0 g1 g3 g6 g8), b (g2 g5), c (g4 g7)
        Group sums = group("all(group(article_id) each(output(sum(zcurve.x(spot_zcurve)))))");
        Map<String, Long> found = new TreeMap<>();
        for (Group article : sums.getChildren()) found.put(article.getId().getString(), result(article, SumAggregationResult.class).getSum().getInteger());
        assertEquals(Map.of("a", 10L - 122419400L + 10L - 1L - 122419400L, "b", 10L + Integer.MAX_VALUE, "c", 0L), found);
    }

    @Test
    void interpolatedLookupIsTheFractionalIndexOfTheValueInTheArray() {
        // upvotes in steps: g0 1 in [0 2 4] 0.5, g1 9 past [0 2 4] 2, g2 3 in [2 6] 0.25, g3 4 below [5 10] 0, g4 [] 0,
        // g5 2 past [1.5] 0, g6 5 in [0 4 8 16] 1.25, g7 7 in it 1.75, g8 6 past [1 2 3] 2
        assertEquals(Map.of(0.5, 1L, 2.0, 2L, 0.25, 1L, 0.0, 3L, 1.25, 1L, 1.75, 1L),
                     floatCounts(group("all(group(interpolatedlookup(steps, upvotes)) each(output(count())))")));
        // of a constant, summed per article: 2.5 in a (g0 g1: 1.25, g3: 0, g6: 0.625, g8: 1.5), b (g2: 0.125, g5: 0), c (g4: 0, g7: 0.625)
        Group sums = group("all(group(article_id) each(output(sum(interpolatedlookup(steps, 2.5)))))");
        Map<String, Double> found = new TreeMap<>();
        for (Group article : sums.getChildren()) found.put(article.getId().getString(), result(article, SumAggregationResult.class).getSum().getFloat());
        assertEquals(Map.of("a", 1.25 + 1.25 + 0 + 0.625 + 1.5, "b", 0.125 + 0.0, "c", 0.0 + 0.625), found);
        // a single-value attribute is an array of one element: always 0
        assertEquals(Map.of(0.0, (long) comments.size()), floatCounts(group("all(group(interpolatedlookup(upvotes, 3)) each(output(count())))")));
    }

    @Test
    void arrayAtIsTheElementAtTheIndexTheLastPastTheEnd() {
        // sizes at 1: g0 20, g1 7 (past the end: the last), g2 0 (empty), g3 2, g4 6, g5 0, g6 3, g7 9, g8 40
        assertEquals(Map.of(20L, 1L, 7L, 1L, 0L, 2L, 2L, 1L, 6L, 1L, 3L, 1L, 9L, 1L, 40L, 1L),
                     numericCounts(group("all(group(array.at(sizes, 1)) each(output(count())))")));
        // a negative index is proton's unsigned index past the end: the last element
        assertEquals(Map.of(30L, 1L, 7L, 1L, 0L, 2L, 2L, 1L, 8L, 1L, 3L, 1L, 9L, 1L, 400L, 1L),
                     numericCounts(group("all(group(array.at(sizes, -1)) each(output(count())))")));
        // strings, "" of an empty array; the index an expression (upvotes - 1: g0 at 0, g4 at -1)
        assertEquals(Map.of("x", 3L, "y", 2L, "z", 1L, "", 2L, "w", 1L), childCounts(group("all(group(array.at(tags, 0)) each(output(count())))")));
        Group sums = group("all(group(article_id) each(output(sum(array.at(sizes, sub(upvotes, 1))))))");
        Map<String, Long> found = new TreeMap<>();
        for (Group article : sums.getChildren()) found.put(article.getId().getString(), result(article, SumAggregationResult.class).getSum().getInteger());
        // a: g0 (0) 10, g1 (8) 7, g3 (3) 2, g6 (4) 3, g8 (5) 400; b: g2 0, g5 (1) 0; c: g4 (-1) 8, g7 (6) 9
        assertEquals(Map.of("a", 10L + 7 + 2 + 3 + 400, "b", 0L, "c", 8L + 9), found);
        // not bound to a level's element: below group(sizes), array.at(sizes, 0) is still the first element
        Group nested = group("all(group(sizes) each(all(group(array.at(sizes, 0)) each(output(count())))))");
        Map<String, Long> pairs = new TreeMap<>();
        for (Group size : nested.getChildren())
            for (Group first : size.getChildren())
                pairs.put(size.getId().getInteger() + "/" + first.getId().getInteger(), result(first, CountAggregationResult.class).getCount());
        Map<String, Long> expected = new TreeMap<>();
        for (String pair : List.of("10/10", "20/10", "30/10", "7/7", "1/1", "2/1", "5/5", "6/5", "7/5", "8/5", "3/3", "9/9", "9/9", "4/4", "40/4", "400/4"))
            expected.merge(pair, 1L, Long::sum); // g7 is twice in group 9
        assertEquals(expected, pairs);
    }

    @Test
    void aggregatesOfAMultiValueAttributeAggregateEveryElement() {
        // sizes of a: g0 10 20 30, g1 7, g3 1 2, g6 3, g8 4 40 400; b: g2 and g5 empty; c: g4 5 6 7 8, g7 9 9
        Group root = group("all(group(article_id) each(output(sum(sizes), avg(sizes), min(sizes), max(sizes), xor(sizes), stddev(sizes), sum(steps))))");
        Map<String, List<Object>> found = new TreeMap<>();
        for (Group article : root.getChildren())
            found.put(article.getId().getString(), List.of(result(article, SumAggregationResult.class).getSum().getInteger(),
                                                           result(article, AverageAggregationResult.class).getCount(),
                                                           result(article, MinAggregationResult.class).getMin().getInteger(),
                                                           result(article, MaxAggregationResult.class).getMax().getInteger(),
                                                           result(article, XorAggregationResult.class).getXor(),
                                                           results(article, SumAggregationResult.class).get(1).getSum().getFloat()));
        assertEquals(Map.of("a", List.of(517L, 10L, 1L, 400L, 443L, 6.0 + 6 + 15 + 28 + 6),
                            "b", List.of(0L, 0L, Long.MAX_VALUE, Long.MIN_VALUE, 0L, 8.0 + 1.5), // proton's prepared min and max
                            "c", List.of(44L, 6L, 5L, 9L, 12L, 28.0)), found);
        Group c = root.getChildren().stream().filter(g -> g.getId().getString().equals("c")).findFirst().orElseThrow();
        assertEquals(44 / 6.0, result(c, AverageAggregationResult.class).getAverage().getFloat(), 1e-12);
        assertEquals(Math.sqrt(20.0 / 9), result(c, StandardDeviationAggregationResult.class).getStandardDeviation(), 1e-12); // E[x^2] 56, mean 22/3
        // where a level binds the attribute to its element, the aggregate is of that element: 7 from g1 and g4, 9 twice from g7
        Group bound = group("all(group(sizes) each(output(sum(sizes))))");
        Map<Long, Long> sums = new TreeMap<>();
        for (Group size : bound.getChildren()) sums.put(size.getId().getInteger(), result(size, SumAggregationResult.class).getSum().getInteger());
        assertEquals(14L, sums.get(7L));
        assertEquals(18L, sums.get(9L));
        assertEquals(400L, sums.get(400L));
    }

    @Test
    void lookupsOfTheWrongKindOfAttributeAreRefusedByName() {
        for (var refused : Map.of("all(group(interpolatedlookup(tags, 1)) each(output(count())))", "interpolatedlookup of STRING attribute 'tags'",
                                  "all(group(array.at(upvotes, 0)) each(output(count())))", "array.at of SINGLE attribute 'upvotes'",
                                  "all(group(article_id) each(output(sum(tags))))", "multi-value attribute 'tags' of STRING").entrySet()) {
            SearchProtocol.SearchReply reply = nodes[0].search(request(refused.getKey()));
            assertEquals(1, reply.getErrorsCount(), refused.getKey());
            assertTrue(reply.getErrors(0).getMessage().contains(refused.getValue()), reply.getErrors(0).getMessage());
        }
    }

    private static Map<Long, Long> numericCounts(Group group) {
        Map<Long, Long> result = new TreeMap<>();
        for (Group child : group.getChildren()) result.put(child.getId().getInteger(), result(child, CountAggregationResult.class).getCount());
        return result;
    }

    private static Map<Double, Long> floatCounts(Group group) {
        Map<Double, Long> result = new TreeMap<>();
        for (Group child : group.getChildren()) result.put(child.getId().getFloat(), result(child, CountAggregationResult.class).getCount());
        return result;
    }

    private static List<String> ids(Group group) {
        return group.getChildren().stream().map(g -> g.getId().getString()).toList();
    }

    private static <T extends AggregationResult> T result(Group group, Class<T> type) {
        return results(group, type).get(0);
    }

    private static <T extends AggregationResult> List<T> results(Group group, Class<T> type) {
        return group.getAggregationResults().stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static Map<String, Long> counts(Function<Comment, String> key) {
        return comments.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.counting()));
    }

    private static Map<String, Long> childCounts(Group group) {
        Map<String, Long> result = new LinkedHashMap<>();
        for (Group child : group.getChildren()) {
            long count = child.getAggregationResults().stream().filter(r -> r instanceof CountAggregationResult)
                              .mapToLong(r -> ((CountAggregationResult) r).getCount()).findFirst().orElseThrow();
            result.put(child.getId().getString(), count);
        }
        return result;
    }

    /**
     * The root group of the result, as the container's GroupingExecutor gets it: in as many passes as it makes (one
     * per level unless the request needs a single pass), each pass sending the state so far to every node, merging
     * the nodes' results (Grouping.merge, postMerge) and merging those into the state.
     */
    private static Group group(String operation) {
        Grouping state = requests(operation).get(0);
        int passes = state.useSinglePass() ? 1 : state.getLevels().size() + 1;
        for (int pass = 0; pass < passes; pass++) {
            if (state.useSinglePass()) state.setFirstLevel(0).setLastLevel(state.getLevels().size());
            else state.setFirstLevel(pass).setLastLevel(pass);
            Grouping merged = null;
            for (ContentNode node : nodes) {
                SearchProtocol.SearchReply reply = node.search(request(List.of(state)));
                assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
                List<Grouping> groupings = GroupingBlob.read(reply.getGroupingBlob().toByteArray());
                assertEquals(1, groupings.size());
                if (merged == null) merged = groupings.get(0);
                else merged.merge(groupings.get(0));
            }
            merged.postMerge();
            state.merge(merged);
        }
        state.postMerge();
        return state.getRoot();
    }

    private static SearchProtocol.SearchRequest request(String operation) {
        return request(groupings(operation));
    }

    private static SearchProtocol.SearchRequest request(List<Grouping> groupings) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(new WordItem("thread", "parent_id"));
        GroupingExecutor.setGroupingList(query, groupings);
        return DwellPackage.request(query, 0);
    }

    /** The grouping requests the container's GroupingExecutor builds for an operation, in one pass. */
    static List<Grouping> groupings(String operation) {
        List<Grouping> list = requests(operation);
        for (Grouping grouping : list) grouping.setFirstLevel(0).setLastLevel(grouping.getLevels().size()); // one pass
        return list;
    }

    /** The grouping requests the container's GroupingExecutor builds for an operation (by its package-private RequestBuilder). */
    @SuppressWarnings("unchecked")
    static List<Grouping> requests(String operation) {
        try {
            Class<?> type = Class.forName("com.yahoo.search.grouping.vespa.RequestBuilder");
            var constructor = type.getDeclaredConstructor(int.class);
            constructor.setAccessible(true);
            Object builder = constructor.newInstance(0);
            var setRoot = type.getMethod("setRootOperation", GroupingOperation.class);
            var build = type.getMethod("build");
            var requests = type.getMethod("getRequestList");
            for (var method : List.of(setRoot, build, requests)) method.setAccessible(true);
            setRoot.invoke(builder, GroupingOperation.fromString(operation));
            build.invoke(builder);
            return (List<Grouping>) requests.invoke(builder);
        }
        catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

}
