package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.language.process.Embedder;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.TrueItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A content node's flushed index state: a node that flushed, then a new node that loaded the state and caught up
 * with a store (puts, partial updates, removes, reused local ids before and after the flush), answers every packaged
 * profile and nearestNeighbor with the same replies, bit for bit, as the node that never stopped. A damaged state
 * file (a flipped byte, a truncation), a temporary file a crashed flush left, an interrupted catch-up and a changed
 * schema or indexing are each detected: that type is indexed again from the store, the others are loaded.
 */
public class IndexStateTest {

    private static final long NOW = 1_800_000_000L;
    private static final String[] WORDS = {"tax", "train", "strike", "football", "museum", "heat", "wave", "plan", "quick", "fox",
                                           "disgrace", "great", "news", "cost", "reported", "badly", "city", "council", "vote", "late"};

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;

    @TempDir Path dir;

    /** The documents as a store holds them (unprocessed, whole) with their write timestamps, and the write history. */
    private final Map<DocumentId, Document> store = new LinkedHashMap<>();
    private final Map<DocumentId, Long> timestamps = new LinkedHashMap<>();
    private long clock = 1_000;

    @BeforeAll
    static void setUp() {
        cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
    }

    @Test
    void aNodeLoadedFromItsStateAnswersAsTheNodeThatFlushedIt() throws IOException {
        try (ContentNode original = node()) {
            Random random = new Random(1);
            feed(random, 250, original);
            original.flush();
            try (ContentNode restarted = node()) {
                assertEquals(all(), restarted.loadState());
                assertEquals(0, catchUp(restarted), "the state holds every stored document");
                feed(random, 80, original, restarted); // writes after the restart: reused local ids, updates of loaded documents
                assertSameAnswers(original, restarted);
                restarted.flush(); // and again, from the loaded state
                try (ContentNode again = node()) {
                    assertEquals(all(), again.loadState());
                    assertEquals(0, catchUp(again));
                    assertSameAnswers(original, again);
                }
            }
        }
    }

    @Test
    void writesAfterTheFlushAreCaughtUpFromTheStore() throws IOException {
        try (ContentNode original = node()) {
            Random random = new Random(2);
            feed(random, 200, original);
            original.flush();
            feed(random, 100, original); // not in the state: the store has them
            try (ContentNode restarted = node()) {
                assertEquals(all(), restarted.loadState());
                assertTrue(catchUp(restarted) > 0);
                assertSameAnswers(original, restarted);
            }
        }
    }

    @Test
    void aDamagedStateFileIsDetectedAndThatTypeIndexedAgain() throws IOException {
        try (ContentNode original = node()) {
            feed(new Random(3), 200, original);
            original.flush();
            Path comments = dir.resolve("comment.index");
            byte[] intact = Files.readAllBytes(comments);
            Random random = new Random(4);
            List<String> damages = List.of("flip", "flip", "flip", "truncate", "truncate", "empty");
            for (String damage : damages) {
                byte[] bytes = intact.clone();
                if (damage.equals("flip")) {
                    int at = random.nextInt(bytes.length);
                    bytes[at] ^= (byte) (1 << random.nextInt(8));
                }
                else if (damage.equals("truncate")) bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
                else bytes = new byte[0];
                Files.write(comments, bytes);
                try (ContentNode restarted = node()) {
                    assertEquals(allBut("comment"), restarted.loadState(), damage);
                    assertEquals(store.keySet().stream().filter(id -> id.getDocType().equals("comment")).count(), catchUp(restarted),
                                 "every comment is indexed again from the store");
                    assertSameAnswers(original, restarted);
                }
            }
        }
    }

    @Test
    void aFlushThatCrashedBeforeItsRenameLeavesThePreviousState() throws IOException {
        try (ContentNode original = node()) {
            feed(new Random(5), 150, original);
            original.flush();
            Path temporary = dir.resolve("comment.index.tmp");
            Files.write(temporary, new byte[] { 1, 2, 3 }); // what a kill -9 in the middle of writing leaves
            feed(new Random(6), 40, original);
            try (ContentNode restarted = node()) {
                assertEquals(all(), restarted.loadState());
                assertFalse(Files.exists(temporary), "the temporary file is deleted");
                catchUp(restarted);
                assertSameAnswers(original, restarted);
            }
        }
    }

    @Test
    void aCatchUpThatWasInterruptedIsDoneAgainOnTheNextStart() throws IOException {
        try (ContentNode original = node()) {
            Random random = new Random(7);
            feed(random, 150, original);
            original.flush();
            feed(random, 60, original);
            try (ContentNode crashed = node()) {
                crashed.loadState();
                crashed.beginCatchUp();
                int i = 0;
                for (var entry : store.entrySet()) { // half of a catch-up, then the process dies (nothing is flushed)
                    if (i++ > store.size() / 2) break;
                    if ( ! crashed.verify(entry.getKey(), timestamps.get(entry.getKey())))
                        crashed.put(indexing.process(entry.getValue().clone()), timestamps.get(entry.getKey()));
                }
            }
            try (ContentNode restarted = node()) {
                assertEquals(all(), restarted.loadState());
                catchUp(restarted);
                assertSameAnswers(original, restarted);
            }
        }
    }

    @Test
    void aChangedIndexingRebuildsOnlyItsType() throws IOException {
        try (ContentNode original = node()) {
            feed(new Random(8), 120, original);
            original.flush();
            try (ContentNode redeployed = new ContentNode(cluster, 0)) {
                redeployed.keepStateIn(dir, Map.of("comment", "another indexing statement"));
                assertEquals(allBut("comment"), redeployed.loadState());
                catchUp(redeployed);
                assertSameAnswers(original, redeployed);
            }
        }
    }

    @Test
    void aSchemaChangeOnRedeployRebuildsTheChangedTypeAndLoadsTheOthers() throws IOException {
        try (ContentNode original = node()) {
            feed(new Random(9), 60, original);
            original.flush();
        }
        Path copy = Files.createTempDirectory("dwell-schema-change");
        copyTree(DwellPackage.dir(), copy);
        Path schema = copy.resolve("schemas/comment.sd");
        String text = Files.readString(schema);
        // a new rank profile: the state is reused
        String newProfile = text.replaceFirst("(rank-profile freshness inherits)", "rank-profile newest inherits features {\n        first-phase { expression: attribute(created_at) }\n    }\n\n    $1");
        assertTrue( ! newProfile.equals(text));
        Files.writeString(schema, newProfile);
        try (ContentNode redeployed = new ContentNode(clusterOf(copy), 0)) {
            redeployed.keepStateIn(dir, Map.of());
            assertEquals(all(), redeployed.loadState(), "a new rank profile changes no index");
        }
        // a new field: comment is indexed again, author loaded
        String newField = newProfile.replaceFirst("(field upvotes type int)", "field flagged type int {\n            indexing: summary | attribute\n        }\n\n        $1");
        assertTrue( ! newField.equals(newProfile));
        Files.writeString(schema, newField);
        try (ContentNode redeployed = new ContentNode(clusterOf(copy), 0)) {
            redeployed.keepStateIn(dir, Map.of());
            assertEquals(allBut("comment"), redeployed.loadState(), "a new field changes the comment index");
        }
    }

    /** Every document type of the package (comment, author and rankingmodel). */
    private static Set<String> all() { return cluster.schemas().keySet(); }

    private static Set<String> allBut(String type) {
        Set<String> types = new java.util.HashSet<>(all());
        types.remove(type);
        return types;
    }

    private static ContentClusterConfig clusterOf(Path packageDir) {
        return ai.dwell.runtime.serve.deploy.ContentClusterConfigs.from(DwellPackage.model(packageDir), "dwell", packageDir);
    }

    private ContentNode node() {
        ContentNode node = new ContentNode(cluster, 0);
        node.keepStateIn(dir, Map.of());
        return node;
    }

    /** Brings the node up to the store as the runtime's catch-up does; returns how many documents it indexed. */
    private int catchUp(ContentNode node) {
        node.beginCatchUp();
        int indexed = 0;
        for (var entry : store.entrySet()) {
            long timestamp = timestamps.get(entry.getKey());
            if (node.verify(entry.getKey(), timestamp)) continue;
            node.put(indexing.process(entry.getValue().clone()), timestamp);
            indexed++;
        }
        node.endCatchUp();
        return indexed;
    }

    /** Random writes, to the store and each node: author puts, comment puts (new and replacing), partial updates and removes. */
    private void feed(Random random, int writes, ContentNode... nodes) {
        DocumentType authorType = indexing.documentTypes().getDocumentType("author");
        DocumentType commentType = indexing.documentTypes().getDocumentType("comment");
        for (int w = 0; w < writes; w++) {
            long timestamp = ++clock;
            int kind = random.nextInt(10);
            if (kind == 0) {
                int a = random.nextInt(15);
                Document author = new Document(authorType, new DocumentId("id:dwell:author::u" + a));
                author.setFieldValue("author_id", new StringFieldValue("u" + a));
                author.setFieldValue("reputation", new FloatFieldValue(random.nextInt(10) / 10f));
                author.setFieldValue("comment_count", new IntegerFieldValue(random.nextInt(100)));
                put(author, timestamp, nodes);
                continue;
            }
            DocumentId id = new DocumentId("id:dwell:comment::c" + random.nextInt(120));
            if (kind <= 2 && store.containsKey(id)) { // remove
                store.remove(id);
                timestamps.remove(id);
                for (ContentNode node : nodes) node.remove(id);
            }
            else if (kind <= 4 && store.containsKey(id)) { // partial update of an attribute, or of the text (re-embedded)
                DocumentUpdate update = new DocumentUpdate(commentType, id);
                if (random.nextBoolean()) update.addFieldUpdate(FieldUpdate.createAssign(commentType.getField("upvotes"), new IntegerFieldValue(random.nextInt(50))));
                else update.addFieldUpdate(FieldUpdate.createAssign(commentType.getField("text"), new StringFieldValue(text(random))));
                Document updated = store.get(id).clone();
                update.applyTo(updated);
                store.put(id, updated);
                timestamps.put(id, timestamp);
                DocumentUpdate processed = indexing.process(update);
                for (ContentNode node : nodes) assertTrue(node.update(processed, timestamp).isPresent());
            }
            else {
                Document comment = new Document(commentType, id);
                String author = "u" + random.nextInt(18); // some authors are missing
                comment.setFieldValue("comment_id", new StringFieldValue(id.getScheme().getNamespaceSpecific()));
                comment.setFieldValue("article_id", new StringFieldValue(random.nextBoolean() ? "small" : "big"));
                comment.setFieldValue("author_id", new StringFieldValue(author));
                comment.setFieldValue("author_ref", new ReferenceFieldValue((ReferenceDataType) commentType.getField("author_ref").getDataType(),
                                                                           new DocumentId("id:dwell:author::" + author)));
                comment.setFieldValue("text", new StringFieldValue(text(random)));
                comment.setFieldValue("created_at", new LongFieldValue(NOW - 3600L * random.nextInt(48)));
                comment.setFieldValue("upvotes", new IntegerFieldValue(random.nextInt(20)));
                comment.setFieldValue("downvotes", new IntegerFieldValue(random.nextInt(5)));
                comment.setFieldValue("reply_count", new IntegerFieldValue(random.nextInt(4)));
                comment.setFieldValue("reads", new IntegerFieldValue(random.nextInt(30)));
                comment.setFieldValue("read_ms", new LongFieldValue(random.nextInt(30) * 1000L));
                put(comment, timestamp, nodes);
            }
        }
    }

    private void put(Document document, long timestamp, ContentNode... nodes) {
        store.put(document.getId(), document);
        timestamps.put(document.getId(), timestamp);
        Document processed = indexing.process(document.clone());
        for (ContentNode node : nodes) node.put(processed.clone(), timestamp);
    }

    private static String text(Random random) {
        StringBuilder text = new StringBuilder();
        int words = 3 + random.nextInt(12);
        for (int i = 0; i < words; i++) text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        return text.toString();
    }

    private static void assertSameAnswers(ContentNode expected, ContentNode actual) {
        assertEquals(expected.activeDocuments(), actual.activeDocuments());
        for (String profile : List.of("freshness", "neural", "neural_onnx", "text")) {
            for (Item root : List.of(new TrueItem(), new WordItem("big", "article_id", true), new WordItem("strike", "text", true), new WordItem("u3", "author_id", true))) {
                assertSame(expected, actual, query(profile, root), profile + " " + root);
            }
        }
        for (boolean approximate : List.of(true, false)) {
            for (String article : new String[] { null, "small" }) {
                Query query = query("similar", nearest(approximate, article));
                query.getRanking().getFeatures().put("query(q)", DwellPackage.embedders().get("minilm")
                        .embed("the train strike is a disgrace", new Embedder.Context("test"), TensorType.fromSpec("tensor<float>(x[384])")));
                assertSame(expected, actual, query, "nearestNeighbor approximate " + approximate + " article " + article);
            }
        }
    }

    private static Item nearest(boolean approximate, String article) {
        NearestNeighborItem nearest = new NearestNeighborItem("embedding", "q");
        nearest.setTargetNumHits(10);
        nearest.setAllowApproximate(approximate);
        if (article == null) return nearest;
        AndItem and = new AndItem();
        and.addItem(new WordItem(article, "article_id", true));
        and.addItem(nearest);
        return and;
    }

    private static void assertSame(ContentNode expected, ContentNode actual, Query query, String what) {
        SearchProtocol.SearchRequest request = DwellPackage.request(query, 40);
        SearchProtocol.SearchReply want = expected.search(request);
        assertEquals(0, want.getErrorsCount(), what + ": " + want.getErrorsList());
        SearchProtocol.SearchReply got = actual.search(request);
        assertEquals(want, got, what);
        if (want.getHitsCount() == 0) return;
        var docsums = SearchProtocol.DocsumRequest.newBuilder().setSummaryClass("default");
        want.getHitsList().forEach(hit -> docsums.addGlobalIds(hit.getGlobalId()));
        assertEquals(expected.getDocsums(docsums.build()), actual.getDocsums(docsums.build()), what + ": summaries");
    }

    private static Query query(String profile, Item root) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        return query;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (var paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) Files.createDirectories(target);
                else Files.copy(path, target);
            }
        }
    }

}
