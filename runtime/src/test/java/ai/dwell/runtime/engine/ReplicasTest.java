package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.GlobalId;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.prelude.query.SubstringItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redundancy of a document type that is not global: each document is held by redundancy nodes (the bucket owner and
 * the nodes after it), the first ready copies of those indexed, the owner's searched. A query over the nodes finds each
 * document once, coverage counts it once, the nodes' document counts are proton's (total, ready, active), and puts,
 * updates, removes and a restart from the flushed state reach every copy. Documents are routed to their holders as
 * serve.ContentServing routes them.
 */
public class ReplicasTest {

    private static final int COMMENTS = 240;

    private final List<ContentNode> nodes = new ArrayList<>();
    private ContentClusterConfig cluster;
    private DocumentTypeManager types;

    @AfterEach
    void tearDown() { nodes.forEach(ContentNode::close); }

    @Test
    void vespasModelGivesTheRedundancyAndReadyCopies(@TempDir Path tmp) throws Exception {
        ContentClusterConfig dwell = DwellPackage.cluster();
        assertEquals(2, dwell.redundancy(), "dwell's min-redundancy 2");
        assertEquals(1, dwell.readyCopies(), "dwell's searchable-copies 1");

        Path replicas = DwellPackage.root().resolve("tests/apps/replicas");
        ContentClusterConfig items = ContentClusterConfigs.from(DwellPackage.model(replicas), "items", replicas);
        assertEquals(3, items.redundancy());
        assertEquals(2, items.readyCopies(), "searchable-copies 2");

        Path copy = tmp.resolve("app");
        ai.dwell.runtime.serve.deploy.PackageFiles.copy(replicas, copy);
        Path services = copy.resolve("services.xml");
        String xml = Files.readString(services);
        Files.writeString(services, xml.replaceAll("(?s)<engine>.*</engine>", "").replace("<min-redundancy>3<", "<min-redundancy>5<"));
        ContentClusterConfig capped = ContentClusterConfigs.from(DwellPackage.model(copy), "items", copy);
        assertEquals(3, capped.redundancy(), "min-redundancy 5 on 3 nodes: capped at the nodes, as Vespa's effective redundancy");
        assertEquals(2, capped.readyCopies(), "searchable-copies not given: Vespa makes it 2 where redundancy is above 1");
        Files.writeString(services, xml.replaceAll("(?s)<engine>.*</engine>", "").replace("<min-redundancy>3<", "<min-redundancy>1<"));
        ContentClusterConfig single = ContentClusterConfigs.from(DwellPackage.model(copy), "items", copy);
        assertEquals(1, single.redundancy());
        assertEquals(1, single.readyCopies());
    }

    @Test
    void eachDocumentIsHeldByRedundancyNodesTheOwnerFirst() {
        ContentClusterConfig dwell = DwellPackage.cluster();
        for (int nodeCount = 1; nodeCount <= 3; nodeCount++) {
            for (int redundancy = 1; redundancy <= 4; redundancy++) {
                for (int ready = 1; ready <= redundancy; ready++) {
                    ContentClusterConfig config = cluster(dwell, nodeCount, redundancy, ready);
                    int copies = Math.min(redundancy, nodeCount), readyCopies = Math.min(ready, copies);
                    for (int i = 0; i < 100; i++) {
                        GlobalId gid = DocumentIndex.globalId(commentId(i));
                        List<Integer> holders = config.holders("comment", gid);
                        assertEquals(copies, holders.size());
                        assertEquals(copies, new HashSet<>(holders).size(), "distinct nodes");
                        assertEquals(config.bucketOwner(gid), holders.get(0));
                        Map<ContentClusterConfig.Copy, Integer> kinds = new HashMap<>();
                        for (int key : config.distributionKeys()) kinds.merge(config.copy("comment", gid, key), 1, Integer::sum);
                        assertEquals(1, kinds.getOrDefault(ContentClusterConfig.Copy.ACTIVE, 0));
                        assertEquals(readyCopies - 1, kinds.getOrDefault(ContentClusterConfig.Copy.READY, 0));
                        assertEquals(copies - readyCopies, kinds.getOrDefault(ContentClusterConfig.Copy.NOT_READY, 0));
                        assertEquals(nodeCount - copies, kinds.getOrDefault(ContentClusterConfig.Copy.NONE, 0));
                        assertEquals(ContentClusterConfig.Copy.ACTIVE, config.copy("comment", gid, config.bucketOwner(gid)));
                    }
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> cluster(dwell, 3, 1, 2), "more ready copies than copies");
    }

    @Test
    void aQueryFindsEachDocumentOnceWithAnyRedundancy() {
        int[][] layouts = { {1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {3, 1, 1}, {3, 2, 2}, {3, 3, 2}, {3, 3, 3}, {3, 3, 1} };
        for (int[] layout : layouts) {
            start(layout[0], layout[1], layout[2]);
            for (int i = 0; i < COMMENTS; i++) put(i, 1000 + i);
            String name = layout[0] + " nodes, redundancy " + layout[1] + ", ready " + layout[2];
            assertFoundOnce(range(0, COMMENTS), name);
            assertCounts(COMMENTS, name);
            nodes.forEach(ContentNode::close);
            nodes.clear();
        }
    }

    @Test
    void theNodesCountTheirCopiesAsProtonDoes() {
        start(3, 3, 2);
        for (int i = 0; i < COMMENTS; i++) put(i, 1000 + i);
        for (ContentNode node : nodes) {
            ContentNode.DocumentCounts counts = node.documentCounts().get("comment");
            assertEquals(COMMENTS, counts.total(), "every node holds every document: redundancy 3 on 3 nodes");
            assertTrue(counts.ready() < COMMENTS && counts.ready() > COMMENTS / 2, "two thirds of them ready: " + counts.ready());
            assertTrue(counts.active() > COMMENTS / 6 && counts.active() < COMMENTS / 2, "a third active: " + counts.active());
            assertEquals(counts.active(), node.activeDocuments() - node.documentCounts().get("author").active() - node.documentCounts().get("rankingmodel").active());
        }
        assertCounts(COMMENTS, "3/3/2");
    }

    @Test
    void removesAndUpdatesReachEveryCopy() {
        start(3, 3, 2);
        for (int i = 0; i < COMMENTS; i++) put(i, 1000 + i);
        for (int i = 0; i < COMMENTS; i += 4) for (ContentNode node : holders(commentId(i))) assertTrue(node.remove(commentId(i)));
        Set<Integer> expected = range(0, COMMENTS);
        expected.removeIf(i -> i % 4 == 0);
        assertFoundOnce(expected, "after removes");
        assertCounts(expected.size(), "after removes");

        DocumentUpdate update = upvotes(1, 7);
        for (ContentNode node : holders(commentId(1))) assertTrue(node.applyUpdate(update, 5000));
        for (ContentNode node : holders(commentId(1))) {
            assertTrue(node.verify(commentId(1), 5000), "node " + node.distributionKey() + " holds the updated version");
            assertFalse(node.verify(commentId(1), 1001));
            node.get(commentId(1)).ifPresent(document -> assertEquals(new IntegerFieldValue(7), document.getFieldValue("upvotes")));
        }
        assertEquals(2, holders(commentId(1)).stream().filter(node -> node.get(commentId(1)).isPresent()).count(), "two ready copies");

        DocumentUpdate missing = upvotes(4, 3); // removed above
        for (ContentNode node : holders(commentId(4))) assertFalse(node.applyUpdate(missing, 5001), "no copy to update");
        DocumentUpdate create = upvotes(4, 3);
        create.setCreateIfNonExistent(true);
        for (ContentNode node : holders(commentId(4))) assertTrue(node.applyUpdate(create, 5002));
        expected.add(4);
        assertFoundOnce(expected, "after create: true");
        assertCounts(expected.size(), "after create: true");
    }

    @Test
    void aRestartFromTheFlushedStateHoldsTheSameCopies(@TempDir Path directory) throws Exception {
        start(3, 3, 2);
        for (int i = 0; i < COMMENTS; i++) put(i, 1000 + i);
        Map<Integer, ContentNode.DocumentCounts> before = new HashMap<>();
        for (ContentNode node : nodes) {
            before.put(node.distributionKey(), node.documentCounts().get("comment"));
            node.keepStateIn(directory.resolve(Integer.toString(node.distributionKey())), Map.of());
            node.flush();
            assertTrue(Files.exists(directory.resolve(node.distributionKey() + "/comment.notready")));
            node.close();
        }
        nodes.clear();
        for (int key : cluster.distributionKeys()) {
            ContentNode node = new ContentNode(cluster, key, SearchThreads.single(), true);
            node.keepStateIn(directory.resolve(Integer.toString(key)), Map.of());
            assertTrue(node.loadState().contains("comment"));
            nodes.add(node);
            assertEquals(before.get(key), node.documentCounts().get("comment"), "node " + key);
        }
        assertFoundOnce(range(0, COMMENTS), "after the restart");
        // the catch-up with the store: every copy is current, one document is gone from the store
        nodes.forEach(ContentNode::beginCatchUp);
        for (int i = 1; i < COMMENTS; i++)
            for (ContentNode node : holders(commentId(i))) assertTrue(node.verify(commentId(i), 1000 + i), "comment " + i + " on " + node.distributionKey());
        int removed = nodes.stream().mapToInt(ContentNode::endCatchUp).sum();
        assertEquals(3, removed, "comment 0's three copies");
        assertFoundOnce(range(1, COMMENTS), "after the catch-up");
        assertCounts(COMMENTS - 1, "after the catch-up");
    }

    @Test
    void aCatchUpMovesCopiesWhenTheReadyCopiesChange(@TempDir Path directory) throws Exception {
        start(3, 3, 1);
        for (int i = 0; i < COMMENTS; i++) put(i, 1000 + i);
        for (ContentNode node : nodes) {
            node.keepStateIn(directory.resolve(Integer.toString(node.distributionKey())), Map.of());
            node.flush();
            node.close();
        }
        nodes.clear();
        cluster = cluster.withRedundancy(3, 2);
        for (int key : cluster.distributionKeys()) {
            ContentNode node = new ContentNode(cluster, key, SearchThreads.single(), true);
            node.keepStateIn(directory.resolve(Integer.toString(key)), Map.of());
            node.loadState();
            nodes.add(node);
        }
        nodes.forEach(ContentNode::beginCatchUp);
        int written = 0;
        for (int i = 0; i < COMMENTS; i++) { // as ContentServing#isCurrent, then a put to every holder where not
            boolean current = true;
            for (ContentNode node : holders(commentId(i))) current &= node.verify(commentId(i), 1000 + i);
            if ( ! current) {
                put(i, 1000 + i);
                written++;
            }
        }
        nodes.forEach(ContentNode::endCatchUp);
        assertEquals(COMMENTS, written, "each document has a copy that became ready");
        assertFoundOnce(range(0, COMMENTS), "after the change");
        assertCounts(COMMENTS, "after the change");
    }

    private void start(int nodeCount, int redundancy, int ready) {
        ContentClusterConfig dwell = DwellPackage.cluster();
        cluster = cluster(dwell, nodeCount, redundancy, ready);
        types = new DocumentTypeManager(cluster.documentManager());
        for (int key : cluster.distributionKeys()) nodes.add(new ContentNode(cluster, key, SearchThreads.single(), true));
    }

    private static ContentClusterConfig cluster(ContentClusterConfig dwell, int nodeCount, int redundancy, int ready) {
        return new ContentClusterConfig(dwell.clusterName(), dwell.packageDir(), dwell.documentManager(), dwell.distributionKeys().subList(0, nodeCount),
                                        dwell.globalDocumentTypes(), dwell.schemas(), dwell.selection(), redundancy, ready);
    }

    /** Every node's counts: each document once active, ready copies times ready, redundancy times in total. */
    private void assertCounts(int documents, String name) {
        long total = 0, ready = 0, active = 0;
        for (ContentNode node : nodes) {
            ContentNode.DocumentCounts counts = node.documentCounts().get("comment");
            total += counts.total();
            ready += counts.ready();
            active += counts.active();
        }
        assertEquals((long) documents * cluster.redundancy(), total, name + ": total");
        assertEquals((long) documents * cluster.readyCopies(), ready, name + ": ready");
        assertEquals(documents, active, name + ": active");
    }

    private void assertFoundOnce(Set<Integer> expected, String name) {
        List<Integer> found = new ArrayList<>();
        long total = 0, coverage = 0;
        Map<GlobalId, Integer> byGid = new HashMap<>();
        for (int i = 0; i < COMMENTS + 10; i++) byGid.put(DocumentIndex.globalId(commentId(i)), i);
        for (ContentNode node : nodes) {
            SearchProtocol.SearchReply reply = search(node);
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            total += reply.getTotalHitCount();
            coverage += reply.getCoverageDocs();
            for (SearchProtocol.Hit hit : reply.getHitsList()) found.add(byGid.get(new GlobalId(hit.getGlobalId().toByteArray())));
        }
        assertEquals(expected.size(), total, name + ": totalCount over the nodes");
        assertEquals(expected.size(), found.size(), name + ": hits over the nodes");
        assertEquals(expected, new HashSet<>(found), name + ": each document once");
        assertEquals(expected.size(), coverage, name + ": coverage");
    }

    private SearchProtocol.SearchReply search(ContentNode node) {
        SubstringItem all = new SubstringItem("comment"); // what the container makes of sddocname:comment
        all.setIndexName("[documentmetastore]");
        Query query = new Query("?ranking=unranked");
        query.getModel().getQueryTree().setRoot(all);
        query.getModel().setRestrict("comment");
        return node.search(DwellPackage.request(query, 1000));
    }

    /** The nodes holding a copy of the document, as ContentServing routes writes to them. */
    private List<ContentNode> holders(DocumentId id) {
        List<Integer> keys = cluster.holders(id.getDocType(), DocumentIndex.globalId(id));
        return nodes.stream().filter(node -> keys.contains(node.distributionKey())).toList();
    }

    private void put(int i, long timestamp) {
        Document comment = new Document(types.getDocumentType("comment"), commentId(i));
        comment.setFieldValue("article_id", new StringFieldValue("a" + (i % 7)));
        comment.setFieldValue("created_at", new LongFieldValue(1_800_000_000L + i));
        for (ContentNode node : holders(comment.getId())) node.put(comment, timestamp);
    }

    private DocumentUpdate upvotes(int i, int value) {
        DocumentUpdate update = new DocumentUpdate(types.getDocumentType("comment"), commentId(i));
        update.addFieldUpdate(FieldUpdate.createAssign(types.getDocumentType("comment").getField("upvotes"), new IntegerFieldValue(value)));
        return update;
    }

    private static DocumentId commentId(int i) { return new DocumentId("id:dwell:comment::c" + i); }

    private static Set<Integer> range(int from, int to) {
        Set<Integer> set = new HashSet<>();
        for (int i = from; i < to; i++) set.add(i);
        return set;
    }

}
