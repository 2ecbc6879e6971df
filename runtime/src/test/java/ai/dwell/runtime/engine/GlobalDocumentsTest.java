package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.GlobalId;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.SubstringItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A global document type on a cluster of three nodes: every node holds every document (for imports), and a query
 * finds each once, as Vespa activates one copy of each bucket: totalCount, the hits and the coverage's document
 * count add up over the nodes to the documents fed, through writes, removes and a restart from the flushed state.
 */
public class GlobalDocumentsTest {

    private static final int AUTHORS = 300;

    private ContentClusterConfig cluster;
    private IndexingScripts indexing;
    private DocumentTypeManager types;
    private final List<ContentNode> nodes = new ArrayList<>();

    @BeforeEach
    void setUp() {
        cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
        types = indexing.documentTypes();
        for (int key : cluster.distributionKeys()) nodes.add(new ContentNode(cluster, key));
        for (int i = 0; i < AUTHORS; i++) putAuthor("u" + i);
    }

    @AfterEach
    void tearDown() { nodes.forEach(ContentNode::close); }

    @Test
    void eachDocumentIsFoundOnceOverTheNodes() {
        assertFoundOnce(authorIds(0, AUTHORS));
        int owners = 0;
        for (ContentNode node : nodes) {
            long found = search(node, AUTHORS).getTotalHitCount();
            assertTrue(found > AUTHORS / 10 && found < AUTHORS, "node " + node.distributionKey() + " searches its share, not all: " + found);
            owners++;
        }
        assertEquals(3, owners);
    }

    @Test
    void removesAndPutsKeepOneSearchedCopy() {
        for (int i = 0; i < AUTHORS; i += 3) for (ContentNode node : nodes) node.remove(new DocumentId("id:dwell:author::u" + i));
        for (int i = 0; i < 30; i++) putAuthor("u" + (i * 3)); // back again
        for (int i = AUTHORS; i < AUTHORS + 50; i++) putAuthor("u" + i);
        Set<String> expected = new HashSet<>(authorIds(0, AUTHORS + 50));
        for (int i = 30; i < AUTHORS / 3; i++) expected.remove("u" + (i * 3));
        assertFoundOnce(expected);
    }

    @Test
    void aRestartFromTheFlushedStateSearchesTheSameCopies(@TempDir Path directory) throws java.io.IOException {
        Map<Integer, Long> before = new HashMap<>();
        for (ContentNode node : nodes) {
            before.put(node.distributionKey(), search(node, AUTHORS).getTotalHitCount());
            node.keepStateIn(directory.resolve(Integer.toString(node.distributionKey())), Map.of());
            node.flush();
            node.close();
        }
        nodes.clear();
        for (int key : cluster.distributionKeys()) {
            ContentNode node = new ContentNode(cluster, key);
            node.keepStateIn(directory.resolve(Integer.toString(key)), Map.of());
            assertTrue(node.loadState().contains("author"), "authors loaded from the state, not indexed again");
            nodes.add(node);
            assertEquals(before.get(key), search(node, AUTHORS).getTotalHitCount(), "node " + key);
        }
        assertFoundOnce(authorIds(0, AUTHORS));
    }

    @Test
    void theOwnerIsTheNodeADocumentOfAnotherTypeWouldHave() {
        for (int i = 0; i < 100; i++) {
            GlobalId gid = DocumentIndex.globalId(new DocumentId("id:dwell:author::u" + i));
            int owner = cluster.bucketOwner(gid);
            assertTrue(cluster.distributionKeys().contains(owner));
            long bucket = gid.toBucketId().getId() & 0xffffffffL;
            assertEquals((int) (bucket % 3), owner, "the location bits over the keys 0, 1, 2");
        }
    }

    private void assertFoundOnce(Set<String> expected) {
        List<String> found = new ArrayList<>();
        long total = 0, activeDocuments = 0;
        for (ContentNode node : nodes) {
            SearchProtocol.SearchReply reply = search(node, 1000);
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            total += reply.getTotalHitCount();
            activeDocuments += reply.getCoverageDocs();
            for (SearchProtocol.Hit hit : reply.getHitsList()) found.add(idOf(hit.getGlobalId().toByteArray(), expected));
        }
        assertEquals(expected.size(), total, "totalCount over the nodes");
        assertEquals(expected.size(), found.size(), "hits over the nodes");
        assertEquals(expected, new HashSet<>(found), "each author once");
        assertEquals(expected.size(), activeDocuments, "coverage: the documents searched");
    }

    private static Set<String> authorIds(int from, int to) {
        Set<String> ids = new HashSet<>();
        for (int i = from; i < to; i++) ids.add("u" + i);
        return ids;
    }

    private static String idOf(byte[] gid, Set<String> candidates) {
        for (String id : candidates)
            if (java.util.Arrays.equals(gid, DocumentIndex.globalId(new DocumentId("id:dwell:author::" + id)).getRawId())) return id;
        return "unexpected " + new GlobalId(gid);
    }

    private SearchProtocol.SearchReply search(ContentNode node, int hits) {
        SubstringItem all = new SubstringItem("author"); // what the container makes of sddocname:author
        all.setIndexName("[documentmetastore]");
        Query query = new Query("?ranking=unranked");
        query.getModel().getQueryTree().setRoot(all);
        query.getModel().setRestrict("author");
        return node.search(DwellPackage.request(query, hits));
    }

    private void putAuthor(String id) {
        Document author = new Document(types.getDocumentType("author"), new DocumentId("id:dwell:author::" + id));
        author.setFieldValue("author_id", new StringFieldValue(id));
        author.setFieldValue("reputation", new FloatFieldValue(0.5f));
        author.setFieldValue("comment_count", new IntegerFieldValue(1));
        Document processed = indexing.process(author);
        for (ContentNode node : nodes) node.put(processed);
    }

}
