package ai.dwell.runtime.storage;

import java.util.concurrent.CompletableFuture;

/**
 * The newest version of a document as seen by the next write to it: either durable, or written
 * by a write that is still waiting for its commit.
 */
final class Version {

    private final StoredDocument document;
    private final CompletableFuture<Result> pendingWrite;

    private Version(StoredDocument document, CompletableFuture<Result> pendingWrite) {
        this.document = document;
        this.pendingWrite = pendingWrite;
    }

    /** A durable version; the document is null if it does not exist. */
    static Version durable(StoredDocument document) { return new Version(document, null); }

    /** A version made by a write which is not durable yet; the document is null if the write removes it. */
    static Version pending(StoredDocument document, CompletableFuture<Result> write) { return new Version(document, write); }

    /** The document, or null if it does not exist in this version. */
    StoredDocument document() { return document; }

    boolean exists() { return document != null; }

    /**
     * Returns the result of an operation that decided on this version without writing, once this version is
     * durable: the outcome of an operation must not be known before the writes it depends on.
     */
    CompletableFuture<Result> thenReturn(Result result) {
        return pendingWrite == null ? CompletableFuture.completedFuture(result)
                                    : pendingWrite.thenApply(ignored -> result);
    }

}
