package ai.dwell.runtime.serve.documentapi;

/**
 * How a document operation ended, in the terms of Vespa's document API.
 *
 * @param status  what happened
 * @param found   whether the document existed (for updates and removes)
 * @param message why it failed, for failures
 */
public record WriteOutcome(Status status, boolean found, String message) {

    public enum Status { OK, IGNORED, NOT_FOUND, CONDITION_FAILED, INVALID_INPUT, OVERLOADED, TIMEOUT, INSUFFICIENT_STORAGE, ERROR }

    public static WriteOutcome ok(boolean found) { return new WriteOutcome(Status.OK, found, null); }

    /** A put no content cluster's selection accepts: stored nowhere, and a success, as Vespa's DocumentIgnoredReply. */
    public static WriteOutcome ignored() { return new WriteOutcome(Status.IGNORED, false, null); }

    public static WriteOutcome notFound() { return new WriteOutcome(Status.NOT_FOUND, false, "Document not found"); }

    public static WriteOutcome failure(Status status, String message) { return new WriteOutcome(status, false, message); }

    public boolean isSuccess() { return status == Status.OK || status == Status.IGNORED || status == Status.NOT_FOUND; }

}
