package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.search.dispatch.LeanHit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sorting on the content engine: order and offsets, and sort blobs byte for byte as proton writes them,
 * merged across two nodes with the dispatcher's own hit comparison.
 */
public class SortingTest {

    private record Comment(String id, String author, long createdAt, int upvotes, int node) {}

    private static final List<Comment> comments = List.of(
            new Comment("s0", "bob", 1000, 5, 0),
            new Comment("s1", "Alice", 3000, 1, 1),
            new Comment("s2", "carol", 2000, 5, 0),
            new Comment("s3", "", 4000, -2, 1),
            new Comment("s4", "alice", 1500, 7, 0),
            new Comment("s5", "Bob", 2500, 1, 1));

    private static ContentNode[] nodes;
    private static final Map<ByteString, String> ids = new HashMap<>();

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        DocumentTypeManager types = indexing.documentTypes();
        nodes = new ContentNode[] { new ContentNode(cluster, 0), new ContentNode(cluster, 1) };
        for (Comment c : comments) {
            DocumentId id = new DocumentId("id:dwell:comment::" + c.id());
            Document doc = new Document(types.getDocumentType("comment"), id);
            doc.setFieldValue("comment_id", new StringFieldValue(c.id()));
            doc.setFieldValue("article_id", new StringFieldValue("sorted"));
            if ( ! c.author().isEmpty()) doc.setFieldValue("author_id", new StringFieldValue(c.author()));
            doc.setFieldValue("text", new StringFieldValue("comment " + c.id()));
            doc.setFieldValue("created_at", new LongFieldValue(c.createdAt()));
            doc.setFieldValue("upvotes", new IntegerFieldValue(c.upvotes()));
            nodes[c.node()].put(indexing.process(doc));
            ids.put(ByteString.copyFrom(id.getGlobalId()), c.id());
        }
    }

    @AfterAll
    static void tearDown() { for (ContentNode node : nodes) node.close(); }

    @Test
    void numericDescendingWithProtonBlobs() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("-created_at", 10, 0));
        assertEquals(List.of("s2", "s4", "s0"), idsOf(reply));
        assertArrayEquals(ByteBuffer.allocate(8).putLong(2000L ^ Long.MAX_VALUE).array(), reply.getHits(0).getSortData().toByteArray());
    }

    @Test
    void numericAscendingInt32Blob() {
        SearchProtocol.SearchReply reply = nodes[1].search(request("+upvotes -created_at", 10, 0));
        assertEquals(List.of("s3", "s1", "s5"), idsOf(reply));
        ByteBuffer blob = ByteBuffer.allocate(12).putInt(-2 ^ Integer.MIN_VALUE).putLong(4000L ^ Long.MAX_VALUE);
        assertArrayEquals(blob.array(), reply.getHits(0).getSortData().toByteArray());
    }

    @Test
    void multipleKeysMergedAcrossNodes() {
        assertEquals(expected(Comparator.comparingInt(Comment::upvotes).reversed().thenComparingLong(Comment::createdAt)),
                     merged("-upvotes +created_at", 10, 0));
    }

    @Test
    void lowercasedStringsWithMissingFirst() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("+lowercase(author_id)", 10, 0));
        assertEquals(List.of("s4", "s0", "s2"), idsOf(reply));
        assertArrayEquals("alice\0".getBytes(StandardCharsets.UTF_8), reply.getHits(0).getSortData().toByteArray());
        // An empty author is the empty string: first ascending; equal names go by the second key
        List<String> all = merged("+lowercase(author_id) -created_at", 10, 0);
        assertEquals(List.of("s3", "s1", "s4", "s5", "s0", "s2"), all);
        assertEquals(List.of("s2", "s5", "s0", "s1", "s4", "s3"), merged("-lowercase(author_id) -created_at", 10, 0));
    }

    @Test
    void descendingStringBlobIsInverted() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("-author_id", 1, 0));
        byte[] blob = reply.getHits(0).getSortData().toByteArray();
        byte[] ascending = "carol\0".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < ascending.length; i++) assertEquals((byte) (0xff - ascending[i]), blob[i]);
    }

    @Test
    void missingPolicyLast() {
        List<String> all = merged("+missing(lowercase(author_id),last) +created_at", 10, 0);
        assertEquals("s3", all.get(all.size() - 1));
    }

    @Test
    void offsetAndHits() {
        List<String> all = expected(Comparator.comparingLong(Comment::createdAt).reversed());
        assertEquals(all.subList(2, 4), merged("-created_at", 2, 2));
        SearchProtocol.SearchReply reply = nodes[0].search(request("-created_at", 1, 1));
        assertEquals(List.of("s4"), idsOf(reply));
        assertEquals(3, reply.getTotalHitCount());
    }

    @Test
    void relevanceAsSortKey() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("-[rank]", 10, 0));
        assertEquals(3, reply.getHitsCount(), reply.getErrorsList().toString());
        for (int i = 1; i < reply.getHitsCount(); i++) assertTrue(reply.getHits(i - 1).getRelevance() >= reply.getHits(i).getRelevance());
        long bits = Double.doubleToRawLongBits(reply.getHits(0).getRelevance());
        assertArrayEquals(ByteBuffer.allocate(8).putLong(bits >= 0 ? bits ^ Long.MAX_VALUE : bits).array(), reply.getHits(0).getSortData().toByteArray());
    }

    @Test
    void unsupportedSortFunctionIsAnError() {
        SearchProtocol.SearchReply reply = nodes[0].search(request("+uca(author_id,en_US,PRIMARY)", 10, 0));
        assertEquals(0, reply.getHitsCount());
        assertTrue(reply.getErrors(0).getMessage().contains("uca"), reply.getErrors(0).getMessage());
    }

    private static List<String> expected(Comparator<Comment> order) {
        return comments.stream().sorted(order).map(Comment::id).toList();
    }

    /** Both nodes' replies merged as the dispatcher merges them (LeanHit order), then offset and hits applied. */
    private static List<String> merged(String sorting, int hits, int offset) {
        List<LeanHit> all = new ArrayList<>();
        for (ContentNode node : nodes) {
            SearchProtocol.SearchReply reply = node.search(request(sorting, hits + offset, 0));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            for (SearchProtocol.Hit hit : reply.getHitsList())
                all.add(new LeanHit(hit.getGlobalId().toByteArray(), OptionalInt.empty(), 0, node.distributionKey(), hit.getRelevance(), hit.getSortData().toByteArray()));
        }
        all.sort(null);
        return all.subList(Math.min(offset, all.size()), Math.min(offset + hits, all.size())).stream()
                  .map(hit -> ids.get(ByteString.copyFrom(hit.getGid()))).toList();
    }

    private static SearchProtocol.SearchRequest request(String sorting, int hits, int offset) {
        Query query = new Query("?ranking=freshness&sorting=" + java.net.URLEncoder.encode(sorting, StandardCharsets.UTF_8));
        query.getModel().getQueryTree().setRoot(new WordItem("sorted", "article_id"));
        query.setOffset(offset);
        SearchProtocol.SearchRequest.Builder request = DwellPackage.request(query, hits).toBuilder();
        return request.setOffset(offset).setHits(hits).build();
    }

    private static List<String> idsOf(SearchProtocol.SearchReply reply) {
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        return reply.getHitsList().stream().map(hit -> ids.get(hit.getGlobalId())).toList();
    }

}
