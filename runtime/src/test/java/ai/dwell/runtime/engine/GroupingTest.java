package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.group.GroupingBlob;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.search.grouping.request.GroupingOperation;
import com.yahoo.search.grouping.vespa.GroupingExecutor;
import com.yahoo.searchlib.aggregation.CountAggregationResult;
import com.yahoo.searchlib.aggregation.Group;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.searchlib.aggregation.HitsAggregationResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    private record Comment(String id, String article, String author, int upvotes) {}

    private static final List<Comment> comments = List.of(
            new Comment("g0", "a", "ann", 1), new Comment("g1", "a", "bob", 9), new Comment("g2", "b", "ann", 3),
            new Comment("g3", "a", "ann", 4), new Comment("g4", "c", "cy", 0), new Comment("g5", "b", "bob", 2),
            new Comment("g6", "a", "dan", 5), new Comment("g7", "c", "ann", 7), new Comment("g8", "a", "bob", 6));

    private static ContentNode[] nodes;

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        IndexingScripts indexing = DwellPackage.indexing(cluster);
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
            doc.setFieldValue("created_at", new LongFieldValue(1000 + i));
            doc.setFieldValue("upvotes", new IntegerFieldValue(c.upvotes()));
            nodes[i++ % 3].put(indexing.process(doc));
        }
    }

    @AfterAll
    static void tearDown() { for (ContentNode node : nodes) node.close(); }

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
        SearchProtocol.SearchReply reply = nodes[0].search(request("all(group(article_id) each(output(sum(upvotes))))"));
        assertEquals(1, reply.getErrorsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("SumAggregationResult"), reply.getErrors(0).getMessage());
        assertTrue(reply.getGroupingBlob().isEmpty());
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

    /** The root group of the merged result of all nodes, merged as the container merges them. */
    private static Group group(String operation) {
        Grouping merged = null;
        for (ContentNode node : nodes) {
            SearchProtocol.SearchReply reply = node.search(request(operation));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            List<Grouping> groupings = GroupingBlob.read(reply.getGroupingBlob().toByteArray());
            assertEquals(1, groupings.size());
            if (merged == null) merged = groupings.get(0);
            else merged.merge(groupings.get(0));
        }
        merged.postMerge();
        return merged.getRoot();
    }

    private static SearchProtocol.SearchRequest request(String operation) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(new WordItem("thread", "parent_id"));
        GroupingExecutor.setGroupingList(query, groupings(operation));
        return DwellPackage.request(query, 0);
    }

    /** The grouping requests the container's GroupingExecutor builds for an operation (by its package-private RequestBuilder). */
    @SuppressWarnings("unchecked")
    static List<Grouping> groupings(String operation) {
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
            List<Grouping> list = (List<Grouping>) requests.invoke(builder);
            for (Grouping grouping : list) grouping.setFirstLevel(0).setLastLevel(grouping.getLevels().size()); // one pass
            return list;
        }
        catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

}
