package ai.dwell.docprocs;

import ai.dwell.application.DwellApplication;
import com.yahoo.docproc.CallStack;
import com.yahoo.docproc.DocumentProcessor.Progress;
import com.yahoo.docproc.Processing;
import com.yahoo.docproc.impl.DocprocExecutor;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentOperation;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.FieldUpdate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CommentProcessor in a docproc chain, on documents of the package's own document types. */
public class CommentProcessorIT {

    private static final long NOW = 1_763_000_000L;
    private static DocumentTypeManager types;

    @BeforeAll
    static void setUp() {
        types = new DocumentTypeManager(DwellApplication.config(DocumentmanagerConfig.class, "dwell_container"));
    }

    @Test
    void aGoodCommentIsCompleted() {
        Document comment = comment("c1", "a1", "Great point. See https://example.com and WWW.example.org NOW!");
        comment.setFieldValue("author_id", new StringFieldValue("alice"));
        assertEquals(Progress.DONE, process(new DocumentPut(comment)));

        assertEquals(new StringFieldValue("c1"), comment.getFieldValue("comment_id"));
        assertEquals(new LongFieldValue(NOW), comment.getFieldValue("created_at"));
        for (String counter : CommentProcessor.COUNTERS)
            assertEquals(new IntegerFieldValue(0), comment.getFieldValue(counter), counter);
        assertEquals(new IntegerFieldValue(61), comment.getFieldValue("text_length"));
        assertEquals(new IntegerFieldValue(7), comment.getFieldValue("word_count"));
        assertEquals(new IntegerFieldValue(2), comment.getFieldValue("link_count"));
        // letters: 47, upper case: G, S, W W W, N O W = 8
        assertEquals(8f / 47f, ((FloatFieldValue) comment.getFieldValue("uppercase_ratio")).getFloat(), 1e-6);
        ReferenceFieldValue author = (ReferenceFieldValue) comment.getFieldValue("author_ref");
        assertEquals("id:dwell:author::alice", author.getDocumentId().get().toString());
    }

    @Test
    void valuesTheFeedGivesAreKept() {
        Document comment = comment("c2", "a1", "Fine.");
        comment.setFieldValue("created_at", new LongFieldValue(123));
        comment.setFieldValue("upvotes", new IntegerFieldValue(5));
        comment.setFieldValue("comment_id", new StringFieldValue("custom"));
        assertEquals(Progress.DONE, process(new DocumentPut(comment)));
        assertEquals(new LongFieldValue(123), comment.getFieldValue("created_at"));
        assertEquals(new IntegerFieldValue(5), comment.getFieldValue("upvotes"));
        assertEquals(new StringFieldValue("custom"), comment.getFieldValue("comment_id"));
        assertNull(comment.getFieldValue("author_ref"), "no author_id, no reference");
    }

    @Test
    void badCommentsAreRefusedAsInvalidInputWithTheReason() {
        Document noText = comment("b1", "a1", null);
        Document blank = comment("b2", "a1", "  \n ");
        Document noArticle = comment("b3", null, "text");
        Document emptyArticle = comment("b4", " ", "text");
        Document tooLong = comment("b5", "a1", "x".repeat(10_001));
        for (var bad : List.of(new Case(noText, "needs a text"), new Case(blank, "needs a text"),
                               new Case(noArticle, "needs an article_id"), new Case(emptyArticle, "needs an article_id"),
                               new Case(tooLong, "10001 characters, more than the limit of 10000"))) {
            Progress progress = process(new DocumentPut(bad.document));
            assertEquals(Progress.INVALID_INPUT, progress, bad.expected);
            assertTrue(progress.getReason().orElse("").contains(bad.expected), progress.getReason().orElse(""));
            assertTrue(progress.getReason().orElse("").contains(bad.document.getId().toString()));
        }
    }

    @Test
    void counterUpdatesPassUntouched() {
        DocumentType type = types.getDocumentType("comment");
        DocumentUpdate vote = new DocumentUpdate(type, "id:dwell:comment::c1");
        vote.addFieldUpdate(FieldUpdate.createIncrement(type.getField("upvotes"), 1));
        vote.addFieldUpdate(FieldUpdate.createIncrement(type.getField("reply_count"), 1));
        assertEquals(Progress.DONE, process(vote));
        assertEquals(2, vote.fieldUpdates().size());
        assertNull(vote.getFieldUpdate("text_length"));
    }

    @Test
    void aNewTextIsCheckedAndItsFeaturesDerived() {
        DocumentType type = types.getDocumentType("comment");
        DocumentUpdate edit = new DocumentUpdate(type, "id:dwell:comment::c1");
        edit.addFieldUpdate(FieldUpdate.createAssign(type.getField("text"), new StringFieldValue("EDITED: two words")));
        assertEquals(Progress.DONE, process(edit));
        assertEquals(new IntegerFieldValue(17), assigned(edit, "text_length"));
        assertEquals(new IntegerFieldValue(3), assigned(edit, "word_count"));
        assertEquals(new IntegerFieldValue(0), assigned(edit, "link_count"));

        DocumentUpdate tooLong = new DocumentUpdate(type, "id:dwell:comment::c1");
        tooLong.addFieldUpdate(FieldUpdate.createAssign(type.getField("text"), new StringFieldValue("y".repeat(20_000))));
        assertEquals(Progress.INVALID_INPUT, process(tooLong));
    }

    @Test
    void otherDocumentTypesPassUntouched() {
        Document author = new Document(types.getDocumentType("author"), "id:dwell:author::alice");
        author.setFieldValue("reputation", new FloatFieldValue(0.5f));
        assertEquals(Progress.DONE, process(new DocumentPut(author)));
        assertNull(author.getFieldValue("comment_count"));
    }

    private record Case(Document document, String expected) {}

    private static Object assigned(DocumentUpdate update, String field) {
        return update.getFieldUpdate(field).getValueUpdate(0).getValue();
    }

    private static Document comment(String id, String article, String text) {
        Document comment = new Document(types.getDocumentType("comment"), "id:dwell:comment::" + id);
        if (article != null) comment.setFieldValue("article_id", new StringFieldValue(article));
        if (text != null) comment.setFieldValue("text", new StringFieldValue(text));
        return comment;
    }

    private static Progress process(DocumentOperation operation) {
        CommentProcessor processor = new CommentProcessor(new CommentProcessorConfig.Builder().build(),
                                                          Clock.fixed(Instant.ofEpochSecond(NOW), ZoneOffset.UTC));
        DocprocExecutor executor = new DocprocExecutor("comments", new CallStack("comments").addLast(processor));
        return executor.processUntilDone(Processing.of(operation));
    }

}
