package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.AssignValueUpdate;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.PhraseItem;
import com.yahoo.prelude.query.WeakAndItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Inspector;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The content engine on dwell's real package: comments, authors and a rankingmodel put through the
 * schemas' indexing scripts, searched with requests serialized by container-search itself, and scores
 * checked against the numpy computations in tests/package/nn_cases.json.
 */
public class ContentNodeTest {

    private static final double TOLERANCE = 1e-5;

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private static DocumentTypeManager types;
    private static ContentNode node;
    private static JsonNode fixture;
    private static long now;

    @BeforeAll
    static void setUp() throws Exception {
        cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
        types = indexing.documentTypes();
        node = new ContentNode(cluster, 0);
        fixture = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build()
                            .readTree(Files.readString(DwellPackage.root().resolve("tests/package/nn_cases.json")));
        now = fixture.get("now").asLong();
        int i = 0;
        for (JsonNode c : fixture.get("cases")) {
            JsonNode a = c.get("attributes");
            boolean hasAuthor = ! Double.isNaN(a.get("author_reputation").asDouble());
            if (hasAuthor) putAuthor("u" + i, a.get("author_reputation").asDouble(), a.get("author_comment_count").asInt());
            putComment("c" + i, "a1", "u" + i, "comment number " + i + " about the quick brown fox", a);
            i++;
        }
        putComment("t1", "a2", "nobody", "The quick brown fox jumps", null);
        putComment("t2", "a2", "nobody", "brown quick fox, slow dog", null);
        putComment("t3", "a2", "nobody", "a lazy dog sleeps", null);
    }

    @AfterAll
    static void tearDown() { node.close(); }

    @Test
    void clusterConfigHasNodesAndGlobalTypes() {
        assertEquals(List.of(0, 1, 2), cluster.distributionKeys());
        assertTrue(cluster.isGlobal("author") && cluster.isGlobal("rankingmodel") && ! cluster.isGlobal("comment"));
        assertEquals(3, cluster.schemas().size());
    }

    @Test
    void whatTheContainerMakesOfAnSddocnameTermMatchesEveryDocument() {
        // QueryRewrite turns sddocname:comment, once the query is restricted to comment, into this
        com.yahoo.prelude.query.SubstringItem rest = new com.yahoo.prelude.query.SubstringItem("comment");
        rest.setIndexName("[documentmetastore]");
        List<String> all = matches(rest);
        assertEquals(ids.values().stream().filter(id -> ! id.startsWith("u")).sorted().toList(), all);
        assertEquals(List.of("t3"), matches(and(rest, word("text", "lazy"))));
        com.yahoo.prelude.query.SubstringItem elsewhere = new com.yahoo.prelude.query.SubstringItem("ick");
        elsewhere.setIndexName("text");
        SearchProtocol.SearchReply reply = search(queryOf(elsewhere), 10);
        assertTrue(reply.getErrors(0).getMessage().contains("substring_term is not supported"), reply.getErrorsList().toString());
    }

    @Test
    void freshnessScoresAreTheBaseline() {
        SearchProtocol.SearchReply reply = search(articleQuery("a1", "freshness"), 10);
        assertEquals(4, reply.getTotalHitCount(), reply.getErrorsList().toString());
        assertScores(reply, "baseline");
        assertTrue(reply.getMatchFeatureNamesList().containsAll(List.of("nn_input", "age_hours", "baseline")));
    }

    @Test
    void neuralWithPackageWeights() {
        assertScores(search(articleQuery("a1", "neural"), 10), "neural_package");
    }

    @Test
    void neuralWithQueryWeights() {
        SearchProtocol.SearchReply reply = search(queryWithWeights(), 10);
        assertScores(reply, "neural_query");
        int version = reply.getMatchFeatureNamesList().indexOf("query(model_version)");
        assertEquals(3.0, reply.getHits(0).getMatchFeatures(version).getNumber());
    }

    @Test
    void rankProgramsAreReusedOnlyForTheSameQueryValues() {
        long hitsBefore = node.programCache().hits();
        assertScores(search(articleQuery("a1", "neural"), 10), "neural_package");
        assertScores(search(articleQuery("a1", "neural"), 10), "neural_package");
        assertTrue(node.programCache().hits() > hitsBefore, "the same query again takes the compiled program from the cache");
        // other weights in the query must not take the program that folded the package's weights, and back
        assertScores(search(queryWithWeights(), 10), "neural_query");
        assertScores(search(articleQuery("a1", "neural"), 10), "neural_package");
        assertScores(search(queryWithWeights(), 10), "neural_query");
        // now is folded into age: another now is another program
        double ageNow = matchFeature(search(articleQuery("a1", "freshness"), 10), "c0", "age_hours");
        double ageLater = matchFeature(search(articleQuery("a1", "freshness", now + 7200), 10), "c0", "age_hours");
        assertEquals(2.0, ageLater - ageNow, 1e-9);
        assertEquals(ageNow, matchFeature(search(articleQuery("a1", "freshness"), 10), "c0", "age_hours"), 1e-9);
    }

    @Test
    void textFeaturesFollowEachQuerysTerms() {
        for (String[] termAndBest : new String[][] { { "dog", "t3" }, { "quick", "t1" }, { "dog", "t3" }, { "jumps", "t1" } }) {
            Query query = new Query("?ranking=text");
            query.getModel().getQueryTree().setRoot(and(word("article_id", "a2"), word("text", termAndBest[0])));
            query.getRanking().getProperties().put("vespa.now", String.valueOf(now));
            SearchProtocol.SearchReply reply = search(query, 10);
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            assertEquals(termAndBest[1], idOf(reply.getHits(0).getGlobalId()), termAndBest[0]);
            for (SearchProtocol.Hit hit : reply.getHitsList())
                assertTrue(matchFeature(reply, idOf(hit.getGlobalId()), "bm25(text)") > 0, "bm25 of '" + termAndBest[0] + "' in " + idOf(hit.getGlobalId()));
        }
    }

    @Test
    void neuralOnnxAgreesWithNumpy() {
        assertScores(search(articleQuery("a1", "neural_onnx"), 10), "neural_package");
    }

    @Test
    void rerankCountLimitsSecondPhase() {
        Query query = articleQuery("a1", "neural");
        query.getRanking().getProperties().put("vespa.hitcollector.heapsize", "2");
        SearchProtocol.SearchReply reply = search(query, 10);
        assertEquals(4, reply.getHitsCount());
        // The two best by baseline are reranked with the network; the others keep baseline order below them
        List<JsonNode> byBaseline = new ArrayList<>();
        fixture.get("cases").forEach(byBaseline::add);
        byBaseline.sort((a, b) -> Double.compare(b.get("baseline").asDouble(), a.get("baseline").asDouble()));
        int nnScore = reply.getMatchFeatureNamesList().indexOf("baseline");
        for (int i = 0; i < 2; i++) {
            double baseline = reply.getHits(i).getMatchFeatures(nnScore).getNumber();
            assertTrue(Math.abs(baseline - byBaseline.get(0).get("baseline").asDouble()) < TOLERANCE
                       || Math.abs(baseline - byBaseline.get(1).get("baseline").asDouble()) < TOLERANCE, "hit " + i + " was reranked");
        }
        assertEquals(byBaseline.get(2).get("baseline").asDouble(), reply.getHits(2).getMatchFeatures(nnScore).getNumber(), TOLERANCE);
        assertTrue(reply.getHits(1).getRelevance() > reply.getHits(2).getRelevance());
    }

    @Test
    void updatesRewriteOnlyTheFieldsTheyTouch() {
        putComment("u1", "a3", "nobody", "an otter swims", null);
        DocumentType comment = types.getDocumentType("comment");
        DocumentUpdate text = new DocumentUpdate(comment, new DocumentId("id:dwell:comment::u1"));
        text.addFieldUpdate(FieldUpdate.createAssign(comment.getField("text"), new StringFieldValue("a beaver builds")));
        node.update(indexing.process(text));
        assertEquals(List.of(), matches(and(word("article_id", "a3"), word("text", "otter"))), "the old text is no longer indexed");
        assertEquals(List.of("u1"), matches(and(word("article_id", "a3"), word("text", "beaver"))));
        DocumentUpdate votes = new DocumentUpdate(comment, new DocumentId("id:dwell:comment::u1"));
        votes.addFieldUpdate(FieldUpdate.createIncrement(comment.getField("upvotes"), 41));
        node.update(indexing.process(votes));
        assertEquals(List.of("u1"), matches(and(word("article_id", "a3"), word("text", "beaver"))), "an attribute update keeps the text indexed");
        assertEquals(List.of("u1"), matches(and(word("article_id", "a3"), new IntItem("42", "upvotes"))));
        assertEquals(List.of(), matches(and(word("article_id", "a3"), new IntItem("1", "upvotes"))));
        node.remove(new DocumentId("id:dwell:comment::u1"));
    }

    @Test
    void importedReputationFollowsAuthorUpdates() {
        Query query = articleQuery("a1", "freshness");
        double before = scoreOf(search(query, 10), "c0");
        DocumentType author = types.getDocumentType("author");
        DocumentUpdate update = new DocumentUpdate(author, new DocumentId("id:dwell:author::u0"));
        update.addFieldUpdate(FieldUpdate.createAssign(author.getField("reputation"), new FloatFieldValue(0.3f)));
        node.update(indexing.process(update));
        try {
            double after = scoreOf(search(query, 10), "c0");
            assertEquals(before - 0.5, after, TOLERANCE); // baseline weighs reputation 1.0: 0.8 → 0.3
        }
        finally {
            DocumentUpdate back = new DocumentUpdate(author, new DocumentId("id:dwell:author::u0"));
            back.addFieldUpdate(FieldUpdate.createAssign(author.getField("reputation"), new FloatFieldValue(0.8f)));
            node.update(indexing.process(back));
        }
    }

    @Test
    void matchesTextPhrasesBooleansAndRanges() {
        assertEquals(List.of("t1", "t2"), matches(and(word("article_id", "a2"), word("default", "fox"))));
        assertEquals(List.of("t1"), matches(and(word("article_id", "a2"), phrase("text", "quick", "brown"))));
        assertEquals(List.of("t2", "t3"), matches(and(word("article_id", "a2"), word("text", "dog"))));
        OrItem or = new OrItem();
        or.addItem(word("text", "jumps"));
        or.addItem(word("text", "lazy"));
        assertEquals(List.of("t1", "t3"), matches(or));
        NotItem not = new NotItem();
        not.addPositiveItem(word("article_id", "A2"));
        not.addNegativeItem(word("text", "fox"));
        assertEquals(List.of("t3"), matches(not));
        assertEquals(List.of("c0", "c1"), matches(and(word("article_id", "a1"), new IntItem("[5;1000]", "upvotes"))));
        assertEquals(List.of("c2"), matches(and(word("article_id", "a1"), new IntItem("<1", "upvotes"))));
        WeakAndItem weakAnd = new WeakAndItem(10);
        weakAnd.addItem(word("text", "jumps"));
        weakAnd.addItem(word("text", "lazy"));
        assertEquals(List.of("t1", "t3"), matches(and(word("article_id", "a2"), weakAnd)));
    }

    @Test
    void bm25RanksTextMatches() {
        Query query = new Query("?ranking=text");
        query.getModel().getQueryTree().setRoot(and(word("article_id", "a2"), word("text", "dog")));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(now));
        SearchProtocol.SearchReply reply = search(query, 10);
        assertEquals(2, reply.getHitsCount(), reply.getErrorsList().toString());
        int bm25 = reply.getMatchFeatureNamesList().indexOf("bm25(text)");
        assertTrue(reply.getHits(0).getMatchFeatures(bm25).getNumber() > 0);
        assertEquals("t3", idOf(reply.getHits(0).getGlobalId())); // shorter field, same tf
    }

    @Test
    void docsumsInRequestOrder() {
        SearchProtocol.SearchReply reply = search(articleQuery("a1", "neural"), 2);
        var request = SearchProtocol.DocsumRequest.newBuilder().setSummaryClass("short").setRankProfile("neural")
                                                  .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("vespa.now").addValues(String.valueOf(now)));
        request.addGlobalIds(reply.getHits(1).getGlobalId()).addGlobalIds(reply.getHits(0).getGlobalId());
        Inspector root = BinaryFormat.decode(node.getDocsums(request.build()).getSlimeSummaries().toByteArray()).get();
        assertEquals(2, root.field("docsums").entries());
        Inspector first = root.field("docsums").entry(0).field("docsum");
        assertEquals(idOf(reply.getHits(1).getGlobalId()), first.field("comment_id").asString());
        assertEquals("a1", first.field("article_id").asString());
        assertTrue(first.field("text").asString().startsWith("comment number"));
        assertEquals( ! idOf(reply.getHits(1).getGlobalId()).equals("c3"), first.field("author_reputation").valid()); // c3 has no author
    }

    @Test
    void docsumsOfAProfileWithoutSummaryFeaturesCompileNoRankProgram() {
        SearchProtocol.SearchReply reply = search(articleQuery("a1", "neural"), 2);
        long compiled = node.rankProgramCounts().get("content.dwell.rank_program.compiled.count").longValue();
        for (long second = now + 1; second <= now + 3; second++) { // a program for each new now, were one needed
            var request = SearchProtocol.DocsumRequest.newBuilder().setSummaryClass("short").setRankProfile("neural")
                                                      .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("vespa.now").addValues(String.valueOf(second)));
            request.addGlobalIds(reply.getHits(0).getGlobalId());
            Inspector docsum = BinaryFormat.decode(node.getDocsums(request.build()).getSlimeSummaries().toByteArray()).get()
                                           .field("docsums").entry(0).field("docsum");
            assertEquals(idOf(reply.getHits(0).getGlobalId()), docsum.field("comment_id").asString());
            assertFalse(docsum.field("summaryfeatures").valid(), "no summary features: no field, as proton writes none (was an empty object)");
        }
        assertEquals(compiled, node.rankProgramCounts().get("content.dwell.rank_program.compiled.count").longValue(),
                     "neural has no summary features: its summaries need no rank program (nor the match a compile makes)");
    }

    @Test
    void unsupportedItemIsAnErrorNamingIt() {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(textSuffix("ox"));
        SearchProtocol.SearchReply reply = search(query, 10);
        assertEquals(1, reply.getErrorsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("suffix_term"), reply.getErrors(0).getMessage());
        assertEquals(0, reply.getHitsCount());
    }

    // ---- helpers

    private static Query queryWithWeights() {
        Query query = articleQuery("a1", "neural");
        query.getRanking().getFeatures().put("query(model_version)", fixture.get("query_model_version").asDouble());
        for (var weight : WEIGHTS.entrySet())
            query.getRanking().getFeatures().put("query(" + weight.getKey() + ")",
                                                 tensor(weight.getValue()[0], fixture.get("query_weights").get(weight.getKey()), weight.getValue()[1].split(",")));
        return query;
    }

    private static double matchFeature(SearchProtocol.SearchReply reply, String id, String feature) {
        int index = reply.getMatchFeatureNamesList().indexOf(feature);
        assertTrue(index >= 0, feature + " in " + reply.getMatchFeatureNamesList());
        return reply.getHitsList().stream().filter(h -> idOf(h.getGlobalId()).equals(id)).findFirst().orElseThrow().getMatchFeatures(index).getNumber();
    }

    private static final Map<String, String[]> WEIGHTS = Map.of(
            "W_0", new String[] { "tensor<float>(x[9],h1[9])", "x,h1" },
            "b_0", new String[] { "tensor<float>(h1[9])", "h1" },
            "W_1", new String[] { "tensor<float>(h1[9],h2[9])", "h1,h2" },
            "b_1", new String[] { "tensor<float>(h2[9])", "h2" },
            "W_2", new String[] { "tensor<float>(h2[9],o[1])", "h2,o" },
            "b_2", new String[] { "tensor<float>(o[1])", "o" });

    private static void assertScores(SearchProtocol.SearchReply reply, String expected) {
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        Map<String, Double> want = new HashMap<>();
        int i = 0;
        for (JsonNode c : fixture.get("cases")) want.put("c" + i++, c.get(expected).asDouble());
        assertEquals(want.size(), reply.getHitsCount());
        double previous = Double.POSITIVE_INFINITY;
        for (SearchProtocol.Hit hit : reply.getHitsList()) {
            String id = idOf(hit.getGlobalId());
            assertEquals(want.get(id), hit.getRelevance(), TOLERANCE, expected + " of " + id);
            assertTrue(hit.getRelevance() <= previous);
            previous = hit.getRelevance();
        }
    }

    private static double scoreOf(SearchProtocol.SearchReply reply, String id) {
        return reply.getHitsList().stream().filter(h -> idOf(h.getGlobalId()).equals(id)).findFirst().orElseThrow().getRelevance();
    }

    private static final Map<ByteString, String> ids = new HashMap<>();

    private static String idOf(ByteString gid) { return ids.get(gid); }

    private static Query queryOf(Item root) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(root);
        query.getRanking().getProperties().put("vespa.now", String.valueOf(now));
        return query;
    }

    private static List<String> matches(Item root) {
        Query query = queryOf(root);
        SearchProtocol.SearchReply reply = search(query, 100);
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        return reply.getHitsList().stream().map(h -> idOf(h.getGlobalId())).sorted().toList();
    }

    private static SearchProtocol.SearchReply search(Query query, int hits) {
        return node.search(DwellPackage.request(query, hits));
    }

    private static Query articleQuery(String article, String profile) { return articleQuery(article, profile, now); }

    private static Query articleQuery(String article, String profile, long now) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(word("article_id", article));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(now));
        return query;
    }

    private static WordItem word(String index, String word) { return new WordItem(word, index); }

    private static AndItem and(Item... items) {
        AndItem and = new AndItem();
        for (Item item : items) and.addItem(item);
        return and;
    }

    private static PhraseItem phrase(String index, String... words) {
        PhraseItem phrase = new PhraseItem();
        phrase.setIndexName(index);
        for (String word : words) phrase.addItem(new WordItem(word, index));
        return phrase;
    }

    private static void putAuthor(String id, double reputation, int commentCount) {
        Document author = new Document(types.getDocumentType("author"), new DocumentId("id:dwell:author::" + id));
        author.setFieldValue("author_id", new StringFieldValue(id));
        author.setFieldValue("reputation", new FloatFieldValue((float) reputation));
        author.setFieldValue("comment_count", new IntegerFieldValue(commentCount));
        node.put(indexing.process(author));
    }

    private static void putComment(String id, String article, String author, String text, JsonNode attributes) {
        DocumentType type = types.getDocumentType("comment");
        DocumentId docId = new DocumentId("id:dwell:comment::" + id);
        Document comment = new Document(type, docId);
        comment.setFieldValue("comment_id", new StringFieldValue(id));
        comment.setFieldValue("article_id", new StringFieldValue(article));
        comment.setFieldValue("author_id", new StringFieldValue(author));
        comment.setFieldValue("author_ref", new ReferenceFieldValue((com.yahoo.document.ReferenceDataType) type.getField("author_ref").getDataType(),
                                                                   new DocumentId("id:dwell:author::" + author)));
        comment.setFieldValue("text", new StringFieldValue(text));
        long created = attributes == null ? now - 100 : attributes.get("created_at").asLong();
        comment.setFieldValue("created_at", new LongFieldValue(created));
        for (String field : List.of("upvotes", "downvotes", "reply_count", "report_count", "text_length"))
            comment.setFieldValue(field, new IntegerFieldValue(attributes == null ? 1 : attributes.get(field).asInt()));
        if (attributes != null) {
            comment.setFieldValue("reads", new IntegerFieldValue(attributes.get("reads").asInt()));
            comment.setFieldValue("read_ms", new LongFieldValue(attributes.get("read_ms").asLong()));
        }
        node.put(indexing.process(comment));
        ids.put(ByteString.copyFrom(new DocumentId("id:dwell:comment::" + id).getGlobalId()), id);
    }

    private static Tensor tensor(String type, JsonNode nested, String... dimensions) {
        Tensor.Builder builder = Tensor.Builder.of(TensorType.fromSpec(type));
        fill(builder, nested, dimensions, new long[dimensions.length], 0);
        return builder.build();
    }

    private static void fill(Tensor.Builder builder, JsonNode node, String[] dims, long[] index, int depth) {
        if (depth == dims.length) {
            var cell = builder.cell();
            for (int d = 0; d < dims.length; d++) cell = cell.label(dims[d], index[d]);
            cell.value(node.asDouble());
            return;
        }
        for (int i = 0; i < node.size(); i++) {
            index[depth] = i;
            fill(builder, node.get(i), dims, index, depth + 1);
        }
    }

    /** A suffix term on the text field: an item this content engine refuses by name. */
    private static com.yahoo.prelude.query.SuffixItem textSuffix(String suffix) {
        com.yahoo.prelude.query.SuffixItem item = new com.yahoo.prelude.query.SuffixItem(suffix);
        item.setIndexName("text");
        return item;
    }

}
