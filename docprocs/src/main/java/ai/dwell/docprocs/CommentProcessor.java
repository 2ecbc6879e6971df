package ai.dwell.docprocs;

import com.yahoo.component.annotation.Inject;
import com.yahoo.docproc.DocumentProcessor;
import com.yahoo.docproc.Processing;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentOperation;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.Field;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.AssignValueUpdate;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.document.update.ValueUpdate;

import java.time.Clock;
import java.util.List;

/**
 * Checks and completes comments on their way in, before indexing.
 *
 * A put of a comment must have an article_id and a non-blank text of at most maxTextLength
 * characters, or it is refused as invalid input (HTTP 400) and nothing is stored. The processor
 * derives the text features that ranking reads, sets created_at to now when absent, zeroes
 * missing counters, fills in comment_id from the document id and author_ref from author_id.
 * An update that assigns a new text gets the same checks and derived features; other updates
 * (votes, replies, reports) pass untouched, without re-processing the text.
 */
public class CommentProcessor extends DocumentProcessor {

    static final String TYPE = "comment";
    static final List<String> COUNTERS = List.of("upvotes", "downvotes", "reply_count", "report_count");

    private final int maxTextLength;
    private final Clock clock;

    @Inject
    public CommentProcessor(CommentProcessorConfig config) {
        this(config, Clock.systemUTC());
    }

    CommentProcessor(CommentProcessorConfig config, Clock clock) {
        this.maxTextLength = config.maxTextLength();
        this.clock = clock;
    }

    @Override
    public Progress process(Processing processing) {
        for (DocumentOperation operation : processing.getDocumentOperations()) {
            try {
                if (operation instanceof DocumentPut put && isComment(put.getDocument().getDataType().getName()))
                    complete(put.getDocument());
                else if (operation instanceof DocumentUpdate update && isComment(update.getDocumentType().getName()))
                    complete(update);
            }
            catch (InvalidCommentException e) {
                return Progress.INVALID_INPUT.withReason(operation.getId() + ": " + e.getMessage());
            }
        }
        return Progress.DONE;
    }

    private static boolean isComment(String type) { return TYPE.equals(type); }

    private void complete(Document comment) {
        String article = stringOf(comment.getFieldValue("article_id"));
        if (article == null || article.isBlank())
            throw new InvalidCommentException("a comment needs an article_id");
        String text = stringOf(comment.getFieldValue("text"));
        checkText(text);

        setTextFeatures(comment, TextFeatures.of(text));
        if (comment.getFieldValue("created_at") == null)
            comment.setFieldValue("created_at", new LongFieldValue(clock.instant().getEpochSecond()));
        for (String counter : COUNTERS)
            if (comment.getFieldValue(counter) == null)
                comment.setFieldValue(counter, new IntegerFieldValue(0));
        if (comment.getFieldValue("comment_id") == null)
            comment.setFieldValue("comment_id", new StringFieldValue(comment.getId().getScheme().getNamespaceSpecific()));
        String author = stringOf(comment.getFieldValue("author_id"));
        if (author != null && ! author.isBlank() && comment.getFieldValue("author_ref") == null) {
            Field reference = comment.getField("author_ref");
            comment.setFieldValue(reference, new ReferenceFieldValue((ReferenceDataType) reference.getDataType(),
                                                                     authorId(comment.getId(), author)));
        }
    }

    private void complete(DocumentUpdate update) {
        FieldUpdate textUpdate = update.getFieldUpdate("text");
        if (textUpdate == null) return; // counters and other fields: nothing to derive
        String text = null;
        for (ValueUpdate valueUpdate : textUpdate.getValueUpdates()) {
            if ( ! (valueUpdate instanceof AssignValueUpdate assign))
                throw new InvalidCommentException("the text of a comment can only be assigned");
            text = stringOf(assign.getValue());
        }
        checkText(text);
        TextFeatures features = TextFeatures.of(text);
        var type = update.getDocumentType();
        update.addFieldUpdate(FieldUpdate.createAssign(type.getField("text_length"), new IntegerFieldValue(features.length())));
        update.addFieldUpdate(FieldUpdate.createAssign(type.getField("word_count"), new IntegerFieldValue(features.words())));
        update.addFieldUpdate(FieldUpdate.createAssign(type.getField("link_count"), new IntegerFieldValue(features.links())));
        update.addFieldUpdate(FieldUpdate.createAssign(type.getField("uppercase_ratio"), new FloatFieldValue(features.uppercaseRatio())));
    }

    private void checkText(String text) {
        if (text == null || text.isBlank())
            throw new InvalidCommentException("a comment needs a text");
        int length = text.codePointCount(0, text.length());
        if (length > maxTextLength)
            throw new InvalidCommentException("the text has " + length + " characters, more than the limit of " + maxTextLength);
    }

    private static void setTextFeatures(Document comment, TextFeatures features) {
        comment.setFieldValue("text_length", new IntegerFieldValue(features.length()));
        comment.setFieldValue("word_count", new IntegerFieldValue(features.words()));
        comment.setFieldValue("link_count", new IntegerFieldValue(features.links()));
        comment.setFieldValue("uppercase_ratio", new FloatFieldValue(features.uppercaseRatio()));
    }

    static DocumentId authorId(DocumentId comment, String author) {
        return new DocumentId("id:" + comment.getScheme().getNamespace() + ":author::" + author);
    }

    private static String stringOf(FieldValue value) {
        return value == null ? null : value.toString();
    }

    /** A comment that cannot be stored, with the reason. */
    static class InvalidCommentException extends RuntimeException {
        InvalidCommentException(String message) { super(message); }
    }

}
