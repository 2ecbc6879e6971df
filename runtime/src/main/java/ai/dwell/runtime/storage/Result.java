package ai.dwell.runtime.storage;

import java.util.Objects;

/**
 * The outcome of a write to the {@link DocumentStore}.
 *
 * @param status what happened
 * @param existed whether the document existed before the operation (only meaningful for {@link Status#OK})
 * @param message a human-readable reason, empty unless the operation failed
 */
public record Result(Status status, boolean existed, String message) {

    /** What happened to a write. */
    public enum Status {
        /** The operation was applied and is durable. */
        OK,
        /** The document did not exist, so the update or remove was a successful no-op. */
        NOT_FOUND,
        /** The test-and-set condition did not match (HTTP 412). Nothing was changed. */
        CONDITION_FAILED,
        /** The operation was invalid: a malformed condition, an unknown type, a bad field value (HTTP 400). Nothing was changed. */
        BAD_REQUEST,
        /**
         * The write is durable (logged, and read back by get and visit) but a listener failed to apply it, so the content
         * nodes may not serve it (HTTP 500: not acknowledged). Writing the document again applies it again.
         */
        NOT_APPLIED
    }

    public Result {
        Objects.requireNonNull(status);
        Objects.requireNonNull(message);
    }

    /** The operation was applied; {@code existed} tells whether the document was there before. */
    public static Result ok(boolean existed) { return new Result(Status.OK, existed, ""); }

    /** The document did not exist, and the operation was a no-op. */
    public static Result notFound() { return new Result(Status.NOT_FOUND, false, ""); }

    public static Result conditionFailed(String message) { return new Result(Status.CONDITION_FAILED, false, message); }

    public static Result badRequest(String message) { return new Result(Status.BAD_REQUEST, false, message); }

    public static Result notApplied(String message) { return new Result(Status.NOT_APPLIED, false, message); }

    /** Returns whether the operation succeeded, which includes no-ops on missing documents. */
    public boolean succeeded() { return status == Status.OK || status == Status.NOT_FOUND; }

}
