package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.TestAndSetCondition;

import java.util.Optional;

/**
 * Evaluates test-and-set conditions the way Vespa's content nodes do: the selection is parsed first
 * (a malformed one is a bad request, even for a missing document); a missing document fails the condition
 * unless the operation creates missing documents; a required timestamp, when given, is compared instead
 * of evaluating the selection; otherwise the selection must evaluate to true for the current document.
 * The stored document is decoded only when a selection is evaluated on it.
 */
final class TestAndSet {

    private TestAndSet() { }

    /**
     * Returns the result to fail the operation with, or empty if it may proceed. The current document is
     * decoded if a selection must be evaluated on it.
     *
     * @param condition the operation's condition, possibly null or not present
     * @param current the current document, or null if it does not exist
     * @param codec decodes the current document
     * @param createsMissingDocument whether the operation creates the document when it is missing
     */
    static Optional<Result> check(TestAndSetCondition condition, StoredDocument current, DocumentCodec codec,
                                  boolean createsMissingDocument) {
        return check(condition, current, null, codec, createsMissingDocument);
    }

    /**
     * As {@link #check(TestAndSetCondition, StoredDocument, DocumentCodec, boolean)}, for a caller that has
     * decoded the current document already: a selection is evaluated on that.
     *
     * @param decoded the current document decoded, not modified since; null if it does not exist
     */
    static Optional<Result> check(TestAndSetCondition condition, StoredDocument current, Document decoded,
                                  boolean createsMissingDocument) {
        return check(condition, current, decoded, null, createsMissingDocument);
    }

    private static Optional<Result> check(TestAndSetCondition condition, StoredDocument current, Document decoded,
                                          DocumentCodec codec, boolean createsMissingDocument) {
        if (condition == null || ! condition.isPresent()) return Optional.empty();

        DocumentSelection selection = null;
        if ( ! condition.getSelection().isEmpty()) {
            try {
                selection = DocumentSelection.parse(condition.getSelection());
            }
            catch (IllegalArgumentException e) {
                return Optional.of(Result.badRequest("Failed to parse test and set condition: " + e.getMessage()));
            }
        }
        if (current == null)
            return createsMissingDocument ? Optional.empty() : Optional.of(Result.conditionFailed("Document does not exist"));

        if (condition.requiredTimestamp() != 0)
            return current.timestamp() == condition.requiredTimestamp()
                   ? Optional.empty()
                   : Optional.of(Result.conditionFailed("Document timestamp " + current.timestamp() +
                                                        " does not match required timestamp " +
                                                        Long.toUnsignedString(condition.requiredTimestamp())));
        try {
            return selection.matches(decoded != null ? decoded : current.decode(codec))
                   ? Optional.empty()
                   : Optional.of(Result.conditionFailed("Condition did not match document"));
        }
        catch (IllegalArgumentException e) {
            return Optional.of(Result.badRequest("Invalid test and set condition: " + e.getMessage()));
        }
    }

}
