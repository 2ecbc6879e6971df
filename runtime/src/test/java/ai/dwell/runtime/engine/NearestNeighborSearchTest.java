package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.language.process.Embedder;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Inspector;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import java.util.Optional;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nearestNeighbor through a content node, as the container's dispatcher sends it: comments embedded
 * by the package's indexing (embed minilm), found within an article and across, ranked by
 * closeness(field, embedding), with closeness and distance checked against the cosines computed here.
 */
public class NearestNeighborSearchTest {

    private static final TensorType VECTOR = TensorType.fromSpec("tensor<float>(x[384])");
    private static final Map<String, String> TEXTS = new HashMap<>();
    private static final Map<ByteString, String> IDS = new HashMap<>();
    private static ContentNode node;
    private static Embedder embedder;

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        embedder = DwellPackage.embedders().get("minilm");
        node = new ContentNode(cluster, 0);
        String[] topics = {"the tax plan", "the train strike", "the football final", "the new museum", "the heat wave"};
        String[] opinions = {"is a disgrace", "is great news", "was badly reported", "will cost us all"};
        int i = 0;
        for (String topic : topics)
            for (String opinion : opinions)
                put(indexing, "n" + i, i++ % 2 == 0 ? "even" : "odd", "Honestly, " + topic + " " + opinion + ".");
    }

    @AfterAll
    static void tearDown() { node.close(); }

    @Test
    void acrossArticlesTheClosestCommentsComeFirstWithVespasCloseness() {
        String text = "The train strike is a disgrace";
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(text, null, 5, true), 5));
        assertEquals(5, reply.getHitsCount(), reply.getErrorsList().toString());
        List<String> expected = closest(text, null, 5);
        assertEquals(expected, ids(reply));
        int closeness = reply.getMatchFeatureNamesList().indexOf("closeness(field,embedding)");
        int distance = reply.getMatchFeatureNamesList().indexOf("distance(field,embedding)");
        for (int h = 0; h < reply.getHitsCount(); h++) {
            double cosine = cosine(text, TEXTS.get(ids(reply).get(h)));
            assertEquals(1 - cosine, reply.getHits(h).getMatchFeatures(distance).getNumber(), 1e-4, "prenormalized-angular: 1 - cos");
            assertEquals(1 / (2 - cosine), reply.getHits(h).getRelevance(), 1e-4, "closeness 1 / (1 + distance)");
            assertEquals(reply.getHits(h).getRelevance(), reply.getHits(h).getMatchFeatures(closeness).getNumber(), 1e-9);
        }
    }

    @Test
    void withinAnArticleOnlyItsCommentsAreSearched() {
        String text = "The train strike is a disgrace";
        for (boolean approximate : List.of(true, false)) {
            SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(text, "odd", 3, approximate), 3));
            assertEquals(closest(text, "odd", 3), ids(reply), "approximate " + approximate);
        }
    }

    @Test
    void theEmbeddingSummaryGivesEachCommentsOwnVector() {
        // the vector index keeps the only copy of the cells; summaries read them from there
        var request = SearchProtocol.DocsumRequest.newBuilder().setSummaryClass("embedding");
        List<String> ids = List.of("n3", "n0", "n17");
        for (String id : ids) request.addGlobalIds(ByteString.copyFrom(new DocumentId("id:dwell:comment::" + id).getGlobalId()));
        Inspector docsums = BinaryFormat.decode(node.getDocsums(request.build()).getSlimeSummaries().toByteArray()).get().field("docsums");
        assertEquals(ids.size(), docsums.entries());
        for (int i = 0; i < ids.size(); i++) {
            Inspector docsum = docsums.entry(i).field("docsum");
            assertEquals("id:dwell:comment::" + ids.get(i), docsum.field("documentid").asString());
            Tensor vector = TypedBinaryFormat.decode(Optional.of(VECTOR), GrowableByteBuffer.wrap(docsum.field("embedding").asData()));
            assertEquals(embed(TEXTS.get(ids.get(i))), vector, ids.get(i));
        }
    }

    private static Query query(String text, String article, int targetHits, boolean approximate) {
        Query query = new Query("?ranking=similar");
        NearestNeighborItem nearest = new NearestNeighborItem("embedding", "q");
        nearest.setTargetNumHits(targetHits);
        nearest.setAllowApproximate(approximate);
        if (article == null) query.getModel().getQueryTree().setRoot(nearest);
        else {
            AndItem and = new AndItem();
            and.addItem(new WordItem(article, "article_id", true));
            and.addItem(nearest);
            query.getModel().getQueryTree().setRoot(and);
        }
        query.getRanking().getFeatures().put("query(q)", embed(text));
        return query;
    }

    /** The ids of the closest comments by cosine computed here, in the article if given. */
    private static List<String> closest(String text, String article, int k) {
        List<String> candidates = new ArrayList<>();
        TEXTS.forEach((id, t) -> {
            int n = Integer.parseInt(id.substring(1));
            if (article == null || article.equals(n % 2 == 0 ? "even" : "odd")) candidates.add(id);
        });
        candidates.sort(Comparator.comparingDouble((String id) -> -cosine(text, TEXTS.get(id))));
        return candidates.subList(0, k);
    }

    private static double cosine(String a, String b) {
        Tensor x = embed(a), y = embed(b);
        return x.multiply(y).sum().asDouble() / Math.sqrt(x.multiply(x).sum().asDouble() * y.multiply(y).sum().asDouble());
    }

    private static Tensor embed(String text) { return embedder.embed(text, new Embedder.Context("test"), VECTOR); }

    private static List<String> ids(SearchProtocol.SearchReply reply) {
        return reply.getHitsList().stream().map(hit -> IDS.get(hit.getGlobalId())).toList();
    }

    private static void put(IndexingScripts indexing, String id, String article, String text) {
        DocumentType type = indexing.documentTypes().getDocumentType("comment");
        Document comment = new Document(type, new DocumentId("id:dwell:comment::" + id));
        comment.setFieldValue("comment_id", new StringFieldValue(id));
        comment.setFieldValue("article_id", new StringFieldValue(article));
        comment.setFieldValue("text", new StringFieldValue(text));
        node.put(indexing.process(comment));
        TEXTS.put(id, text);
        IDS.put(ByteString.copyFrom(new DocumentId("id:dwell:comment::" + id).getGlobalId()), id);
    }

}
