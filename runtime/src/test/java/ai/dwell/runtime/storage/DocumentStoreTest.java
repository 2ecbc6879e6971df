package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.TestAndSetCondition;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.document.update.TensorModifyUpdate;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static ai.dwell.runtime.storage.TestDocuments.commentId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Vespa's write semantics, conditions, listeners and visiting. */
class DocumentStoreTest {

    @TempDir
    Path directory;

    private final TestDocuments documents = new TestDocuments();
    private DocumentStore store;

    @BeforeEach
    void open() {
        store = new DocumentStore(directory, documents.types());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void putGetUpdateRemove() {
        DocumentId id = commentId(1);
        assertEquals(Result.ok(false), store.put(documents.putComment(1)));
        assertEquals(documents.comment(1), store.get(id).orElseThrow());
        assertEquals(Result.ok(true), store.put(documents.putComment(1)));

        DocumentUpdate update = documents.updateComment(id);
        update.addFieldUpdate(FieldUpdate.createAssign(documents.commentType().getField("text"), new StringFieldValue("edited")));
        update.addFieldUpdate(FieldUpdate.createIncrement(documents.commentType().getField("votes"), 10));
        update.addFieldUpdate(FieldUpdate.create(documents.commentType().getField("embedding"))
                                         .addValueUpdate(new TensorModifyUpdate(TensorModifyUpdate.Operation.ADD,
                                                                                new TensorFieldValue(Tensor.from("tensor<float>(x{}):{{x:1}:2.0}")))));
        assertEquals(Result.ok(true), store.update(update));

        Document updated = store.get(id).orElseThrow();
        assertEquals(new StringFieldValue("edited"), updated.getFieldValue("text"));
        assertEquals(new IntegerFieldValue(11), updated.getFieldValue("votes"));
        assertEquals(Tensor.from("tensor<float>(x[3]):[1, 3.5, -1]"), ((TensorFieldValue) updated.getFieldValue("embedding")).getTensor().get());
        assertEquals(documents.comment(1).getFieldValue("tags"), updated.getFieldValue("tags"), "other fields are kept");

        assertEquals(Result.ok(true), store.remove(new DocumentRemove(id)));
        assertEquals(Optional.empty(), store.get(id));
        assertEquals(0, store.documentCount());
    }

    @Test
    void asynchronousWritesToOneDocumentBuildOnEachOtherInOrder() {
        List<CompletableFuture<Result>> results = List.of(store.putAsync(documents.putComment(1)),
                                                          store.updateAsync(documents.incrementVotes(commentId(1), 1)),
                                                          store.updateAsync(documents.incrementVotes(commentId(1), 1)),
                                                          store.updateAsync(conditional(documents.incrementVotes(commentId(1), 1), "comment.votes == 3")),
                                                          store.removeAsync(new DocumentRemove(commentId(1))),
                                                          store.updateAsync(documents.incrementVotes(commentId(1), 1)));
        assertEquals(List.of(Result.ok(false), Result.ok(true), Result.ok(true), Result.ok(true), Result.ok(true), Result.notFound()),
                     results.stream().map(CompletableFuture::join).toList());
        assertEquals(Optional.empty(), store.get(commentId(1)));
    }

    @Test
    void documentsReturnedAreCopies() {
        store.put(documents.putComment(1));
        store.get(commentId(1)).orElseThrow().setFieldValue("text", "changed by a reader");
        store.visit("comment", null, null, 10).documents().forEach(document -> document.setFieldValue("text", "changed by a visitor"));
        store.forEach(document -> document.setFieldValue("text", "changed by a forEach consumer"));
        store.subscribe(new ChangeListener() { // breaks the contract of listeners, but still cannot change what is stored
            @Override public void onPut(Document document) { document.setFieldValue("text", "changed by a listener"); }
            @Override public void onRemove(DocumentId id) { }
        });
        Document mutatedAfterPut = documents.comment(2);
        store.put(new DocumentPut(mutatedAfterPut));
        mutatedAfterPut.setFieldValue("text", "changed by the writer");

        assertEquals(documents.comment(1), store.get(commentId(1)).orElseThrow());
        assertEquals(documents.comment(2), store.get(commentId(2)).orElseThrow());
        assertNotSame(store.get(commentId(1)).orElseThrow(), store.get(commentId(1)).orElseThrow());
        store.update(documents.incrementVotes(commentId(2), 1));
        assertEquals(documents.comment(2).getFieldValue("text"), store.get(commentId(2)).orElseThrow().getFieldValue("text"),
                     "an update builds on the stored document");
    }

    @Test
    void updatesAndRemovesOfMissingDocumentsAreNoOps() {
        assertEquals(Result.notFound(), store.update(documents.incrementVotes(commentId(1), 1)));
        assertEquals(Result.notFound(), store.remove(new DocumentRemove(commentId(1))));
        assertEquals(Optional.empty(), store.get(commentId(1)));
        assertEquals(0, store.documentCount());
    }

    @Test
    void createIfNonExistentUpdateCreatesAnEmptyDocumentAndAppliesTheUpdate() {
        DocumentUpdate update = documents.incrementVotes(commentId(1), 3);
        update.setCreateIfNonExistent(true);
        assertEquals(Result.ok(false), store.update(update));
        Document created = store.get(commentId(1)).orElseThrow();
        assertEquals(new IntegerFieldValue(3), created.getFieldValue("votes"));
        assertEquals(null, created.getFieldValue("text"));

        assertEquals(Result.ok(true), store.update(update));
        assertEquals(new IntegerFieldValue(6), store.get(commentId(1)).orElseThrow().getFieldValue("votes"));
    }

    @Test
    void conditionsAreVespaDocumentSelectionsOnTheCurrentDocument() {
        store.put(documents.putComment(42)); // votes = 42

        DocumentUpdate matching = conditional(documents.incrementVotes(commentId(42), 1), "comment.votes == 42");
        assertEquals(Result.ok(true), store.update(matching));

        DocumentUpdate notMatching = conditional(documents.incrementVotes(commentId(42), 1), "comment.votes == 42");
        assertEquals(Result.Status.CONDITION_FAILED, store.update(notMatching).status());
        assertEquals(new IntegerFieldValue(43), store.get(commentId(42)).orElseThrow().getFieldValue("votes"));

        DocumentPut put = new DocumentPut(documents.comment(42));
        put.setCondition(new TestAndSetCondition("comment.text == \"comment number 42\" and comment.votes > 42"));
        assertEquals(Result.ok(true), store.put(put));

        DocumentRemove remove = new DocumentRemove(commentId(42));
        remove.setCondition(new TestAndSetCondition("comment.votes < 0"));
        assertEquals(Result.Status.CONDITION_FAILED, store.remove(remove).status());
        remove.setCondition(new TestAndSetCondition("comment.votes >= 0"));
        assertEquals(Result.ok(true), store.remove(remove));
    }

    @Test
    void malformedConditionsAreBadRequests() {
        store.put(documents.putComment(1));
        assertEquals(Result.Status.BAD_REQUEST,
                     store.update(conditional(documents.incrementVotes(commentId(1), 1), "comment.votes >>> 1")).status());
        assertEquals(Result.Status.BAD_REQUEST,
                     store.update(conditional(documents.incrementVotes(commentId(1), 1), "comment.nosuchfield == 1")).status());
        assertEquals(Result.Status.BAD_REQUEST, // parsed before the document is looked up, as in Vespa
                     store.update(conditional(documents.incrementVotes(commentId(2), 1), "comment.votes >>> 1")).status());
        assertEquals(new IntegerFieldValue(1), store.get(commentId(1)).orElseThrow().getFieldValue("votes"));
    }

    @Test
    void conditionsOnMissingDocumentsFailUnlessTheOperationCreatesThem() {
        assertEquals(Result.Status.CONDITION_FAILED,
                     store.update(conditional(documents.incrementVotes(commentId(1), 1), "comment.votes > 0")).status());
        DocumentRemove remove = new DocumentRemove(commentId(1));
        remove.setCondition(new TestAndSetCondition("comment.votes > 0"));
        assertEquals(Result.Status.CONDITION_FAILED, store.remove(remove).status());
        DocumentPut put = new DocumentPut(documents.comment(1));
        put.setCondition(new TestAndSetCondition("comment.votes > 0"));
        assertEquals(Result.Status.CONDITION_FAILED, store.put(put).status());
        assertEquals(Optional.empty(), store.get(commentId(1)));

        DocumentUpdate create = conditional(documents.incrementVotes(commentId(1), 1), "comment.votes > 100");
        create.setCreateIfNonExistent(true);
        assertEquals(Result.ok(false), store.update(create));
        assertEquals(Result.Status.CONDITION_FAILED, store.update(create).status(), "an existing document must match");

        put = new DocumentPut(documents.comment(2));
        put.setCondition(new TestAndSetCondition("comment.votes > 100"));
        put.setCreateIfNonExistent(true);
        assertEquals(Result.ok(false), store.put(put));
    }

    @Test
    void requiredTimestampConditionMatchesTheLastModifiedTimeOfTheDocument() {
        store.put(documents.putComment(1));
        long lastModified = store.get(commentId(1)).orElseThrow().getLastModified();
        DocumentUpdate update = documents.incrementVotes(commentId(1), 1);
        update.setCondition(TestAndSetCondition.ofRequiredTimestamp(lastModified));
        assertEquals(Result.ok(true), store.update(update));
        assertEquals(Result.Status.CONDITION_FAILED, store.update(update).status());
        assertTrue(store.get(commentId(1)).orElseThrow().getLastModified() > lastModified);
    }

    @Test
    void writesOfUnknownTypesOrMismatchedIdsAreBadRequests() {
        Document unknown = new Document(new DocumentType("stranger"), new DocumentId("id:test:stranger::1"));
        assertEquals(Result.Status.BAD_REQUEST, store.put(new DocumentPut(unknown)).status());
        DocumentUpdate mismatched = new DocumentUpdate(documents.commentType(), new DocumentId("id:test:author::1"));
        mismatched.setCreateIfNonExistent(true);
        assertEquals(Result.Status.BAD_REQUEST, store.update(mismatched).status());
        assertEquals(Result.Status.BAD_REQUEST, store.remove(new DocumentRemove(new DocumentId("id:test:nosuchtype::1"))).status());
        DocumentUpdate badValue = documents.updateComment(commentId(1));
        badValue.addFieldUpdate(FieldUpdate.create(documents.commentType().getField("embedding"))
                                           .addValueUpdate(new TensorModifyUpdate(TensorModifyUpdate.Operation.REPLACE,
                                                                                  new TensorFieldValue(Tensor.from("tensor<float>(y{}):{{y:a}:2.0}")))));
        badValue.setCreateIfNonExistent(true);
        assertEquals(Result.Status.BAD_REQUEST, store.update(badValue).status());
        assertEquals(0, store.documentCount());
    }

    @Test
    void listenersFollowChangesInOrder() {
        store.put(documents.putComment(1));
        List<String> seen = new ArrayList<>();
        ChangeListener listener = new ChangeListener() {
            @Override public void onPut(Document document) { seen.add("put " + document.getId() + " " + document.getFieldValue("votes")); }
            @Override public void onRemove(DocumentId id) { seen.add("remove " + id); }
        };
        store.subscribe(listener);
        store.put(documents.putComment(2));
        store.update(documents.incrementVotes(commentId(2), 5));
        store.update(documents.incrementVotes(commentId(3), 5)); // no-op: not a change
        store.remove(new DocumentRemove(commentId(1)));
        store.remove(new DocumentRemove(commentId(1)));          // no-op
        assertEquals(List.of("put id:test:comment::1 1",
                             "put id:test:comment::2 2",
                             "put id:test:comment::2 7",
                             "remove id:test:comment::1"),
                     seen);
    }

    @Test
    void aNewListenerGetsTheStoredDocumentsPreparedOnOtherThreadsAndAppliedInOrder() {
        for (int n = 0; n < 2000; n++) store.put(documents.putComment(n));
        Thread subscriber = Thread.currentThread();
        Set<String> preparers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Set<String> appliers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<String> seen = new ArrayList<>();
        ChangeListener listener = new ChangeListener() {
            @Override public Object prepare(Document document) {
                preparers.add(Thread.currentThread().getName());
                if (document.getId().equals(commentId(13))) throw new IllegalArgumentException("cannot prepare 13");
                return "prepared " + document.getFieldValue("votes");
            }
            @Override public void onPut(Document document, Object prepared) {
                appliers.add(Thread.currentThread().getName());
                seen.add(document.getId() + " " + prepared);
            }
            @Override public void onPut(Document document) { seen.add(document.getId() + " unprepared"); }
            @Override public void onRemove(DocumentId id) { seen.add("remove " + id); }
        };
        store.subscribe(listener);

        List<String> expected = new ArrayList<>();
        store.visit("comment", null, null, 10_000).documents().forEach(document -> // the store's order
            expected.add(document.getId() + (document.getId().equals(commentId(13)) ? " unprepared" : " prepared " + document.getFieldValue("votes"))));
        assertEquals(2000, expected.size());
        assertEquals(expected, seen);
        assertFalse(preparers.contains(subscriber.getName()), "prepared on the catch-up threads: " + preparers);
        assertEquals(Set.of(subscriber.getName()), appliers, "applied on the subscribing thread, one at a time");
        store.put(documents.putComment(5000));
        assertEquals(2001, seen.size(), "then it follows the writes");
    }

    @Test
    void aListenerThatHoldsADocumentsVersionIsNotGivenItAgain() {
        for (int n = 0; n < 100; n++) store.put(documents.putComment(n));
        store.update(documents.incrementVotes(commentId(7), 5)); // a newer version than the listener holds
        java.util.Map<DocumentId, Long> held = new java.util.concurrent.ConcurrentHashMap<>();
        for (int n = 0; n < 50; n++) held.put(commentId(n), store.get(commentId(n)).orElseThrow().getLastModified());
        held.put(commentId(7), held.get(commentId(7)) - 1);
        List<String> seen = new ArrayList<>();
        ChangeListener listener = new ChangeListener() {
            @Override public boolean isCurrent(DocumentId id, long timestamp) { return Long.valueOf(timestamp).equals(held.get(id)); }
            @Override public void beginCatchUp() { seen.add("begin"); }
            @Override public void endCatchUp() { seen.add("end"); }
            @Override public void onPut(Document document) {
                assertEquals(store.get(document.getId()).orElseThrow().getLastModified(), document.getLastModified(), "the store's timestamp");
                seen.add(document.getId().toString());
            }
            @Override public void onRemove(DocumentId id) { seen.add("remove " + id); }
        };
        store.subscribe(listener);
        assertEquals("begin", seen.get(0));
        assertEquals("end", seen.get(seen.size() - 1));
        Set<String> given = new HashSet<>(seen.subList(1, seen.size() - 1));
        assertEquals(51, given.size(), "the 50 documents the listener does not hold, and the one it holds an older version of");
        assertTrue(given.contains(commentId(7).toString()));
        assertFalse(given.contains(commentId(8).toString()));
    }

    @Test
    void listenersPrepareOnTheWritersThreadAndCanRefuseAWrite() {
        List<String> seen = new ArrayList<>();
        Thread writer = Thread.currentThread();
        ChangeListener listener = new ChangeListener() {
            @Override public Object prepare(Document document) {
                assertEquals(writer, Thread.currentThread(), "prepared on the writer's thread");
                if (document.getFieldValue("votes").equals(new IntegerFieldValue(13))) throw new IllegalArgumentException("13 votes is refused");
                return "prepared " + document.getFieldValue("votes");
            }
            @Override public void onPut(Document document, Object prepared) { seen.add(document.getId() + " " + prepared); }
            @Override public void onPut(Document document) { seen.add(document.getId() + " unprepared"); }
            @Override public void onRemove(DocumentId id) { seen.add("remove " + id); }
        };
        store.subscribe(listener);
        assertEquals(Result.ok(false), store.put(documents.putComment(2)));
        assertEquals(Result.ok(true), store.update(documents.incrementVotes(commentId(2), 5)));
        Result refused = store.update(documents.incrementVotes(commentId(2), 6));
        assertEquals(Result.Status.BAD_REQUEST, refused.status());
        assertTrue(refused.message().contains("13 votes is refused"), refused.message());
        assertEquals(new IntegerFieldValue(7), store.get(commentId(2)).orElseThrow().getFieldValue("votes"), "the refused update is not stored");
        assertEquals(List.of("id:test:comment::2 prepared 2", "id:test:comment::2 prepared 7"), seen);
    }

    /** A write a listener (the content nodes) fails to apply is durable but not acknowledged: the writer is told so. */
    @Test
    void aWriteAListenerCannotApplyIsNotAcknowledged() {
        List<String> applied = new ArrayList<>();
        store.subscribe(new ChangeListener() {
            @Override public void onPut(Document document) {
                if (document.getFieldValue("votes").equals(new IntegerFieldValue(3))) throw new IllegalStateException("node 1 is out of memory");
                applied.add(document.getId() + " " + document.getFieldValue("votes"));
            }
            @Override public void onRemove(DocumentId id) {
                if (id.equals(commentId(4))) throw new IllegalStateException("node 2 failed");
                applied.add("remove " + id);
            }
        });
        assertEquals(Result.ok(false), store.put(documents.putComment(1)));
        Result failed = store.update(documents.incrementVotes(commentId(1), 2));
        assertEquals(Result.Status.NOT_APPLIED, failed.status());
        assertFalse(failed.succeeded());
        assertTrue(failed.message().contains(commentId(1) + " is logged, but could not be applied to the content nodes: node 1 is out of memory"), failed.message());
        assertEquals(new IntegerFieldValue(3), store.get(commentId(1)).orElseThrow().getFieldValue("votes"), "durable all the same");
        assertEquals(Result.ok(true), store.update(documents.incrementVotes(commentId(1), 1)), "the next write applies, and is acknowledged");
        assertEquals(Result.ok(false), store.put(documents.putComment(4)));
        assertEquals(Result.Status.NOT_APPLIED, store.remove(new DocumentRemove(commentId(4))).status());
        assertTrue(store.get(commentId(4)).isEmpty());
        assertEquals(List.of(commentId(1) + " 1", commentId(1) + " 4", commentId(4) + " 4"), applied);
    }

    @Test
    void visitingPagesThroughOneTypeWithASelectionInAStableOrder() {
        for (int n = 0; n < 250; n++) store.put(documents.putComment(n));
        store.put(new DocumentPut(documents.author("ann")));

        Set<DocumentId> visited = new HashSet<>();
        List<Integer> pageSizes = new ArrayList<>();
        String continuation = null;
        do {
            Page page = store.visit("comment", "comment.votes < 50", continuation, 30);
            page.documents().forEach(document -> {
                assertTrue(visited.add(document.getId()), "each document once");
                assertEquals(documents.comment(Integer.parseInt(document.getId().getScheme().getNamespaceSpecific())), document);
            });
            pageSizes.add(page.documents().size());
            continuation = page.continuation().orElse(null);
        } while (continuation != null);
        assertEquals(150, visited.size());
        assertTrue(pageSizes.size() > 1, "several pages: " + pageSizes);

        Page authors = store.visit("author", null, null, 10);
        assertEquals(List.of(documents.author("ann")), authors.documents());
        assertFalse(authors.continuation().isPresent());
        assertEquals(251, store.visit(null, null, null, 1000).documents().size());

        assertThrows(IllegalArgumentException.class, () -> store.visit("comment", "comment.votes <<< 1", null, 10));
        assertThrows(IllegalArgumentException.class, () -> store.visit("nosuchtype", null, null, 10));
        assertThrows(IllegalArgumentException.class, () -> store.visit("comment", null, "not a continuation!", 10));
        String commentContinuation = store.visit("comment", null, null, 1).continuation().orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> store.visit("author", null, commentContinuation, 10));
    }

    private static DocumentUpdate conditional(DocumentUpdate update, String condition) {
        update.setCondition(new TestAndSetCondition(condition));
        return update;
    }

}
