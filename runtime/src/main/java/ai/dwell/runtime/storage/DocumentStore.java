package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Every document of every type, in memory, made durable by a transaction log in a data directory:
 * the runtime's stand-in for proton's document store.
 *
 * <p>Writes follow Vespa's semantics: a put replaces the whole document; an update is applied to the
 * current document, and is a successful no-op for a missing document unless it creates missing documents;
 * a remove of a missing document is a successful no-op; a test-and-set condition is a Vespa document
 * selection evaluated against the current document, as on Vespa's content nodes.
 *
 * <p>A write is acknowledged (its future completes) only once its log entry is fsynced. One commit
 * thread fsyncs for all writes that arrived meanwhile (group commit). Writes to different documents
 * proceed in parallel; writes to the same document are applied in the order they were submitted, each
 * building on the previous one without waiting for it to be durable. Reads ({@link #get}, {@link #visit},
 * {@link #forEach}) see only durable writes.
 *
 * <p>The per-document work of listeners ({@link ChangeListener#prepare}, e.g. indexing) runs on the
 * writer's thread before the write is logged; the commit thread only fsyncs, makes writes visible and
 * hands the prepared changes to the listeners, in log order. Futures are completed on a small pool of
 * acknowledgement threads after that, so the commit thread does not run the writers' continuations.
 *
 * <p>Documents are kept serialized, in the bytes their log entry holds, and decoded when read: each read
 * returns a new {@link Document} owned by the caller.
 *
 * <p>Recovery on construction loads the newest valid snapshot and replays the log after it; snapshots are
 * taken every {@link StoreOptions#snapshotEveryEntries()} entries, on {@link #snapshot()}, and on {@link #close()}.
 */
public final class DocumentStore implements AutoCloseable {

    private static final Logger log = Logger.getLogger(DocumentStore.class.getName());

    private final DocumentTypeManager types;
    private final DocumentCodec codec;
    private final DocumentTable table = new DocumentTable();
    private final PendingWrites pendingWrites = new PendingWrites(table);
    private final List<ChangeListener> listeners = new CopyOnWriteArrayList<>();
    private final Object applyLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final DataDirectory directory;
    private final TimestampClock clock;
    private final TransactionLog transactionLog;
    private final Snapshotter snapshotter;
    private final ExecutorService acknowledgements = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "dwell-store-acks");
        thread.setDaemon(true);
        return thread;
    });

    /** Opens the store in the given directory, with default options, recovering what is there. */
    public DocumentStore(Path directory, DocumentTypeManager types) {
        this(directory, types, StoreOptions.defaults());
    }

    /** Opens the store in the given directory, recovering what is there. Nothing is written outside it. */
    public DocumentStore(Path directory, DocumentTypeManager types, StoreOptions options) {
        this(directory, types, options, SegmentFiles.FILE_SYSTEM);
    }

    /** Opens the store with its log segments in files opened by the given file layer. */
    DocumentStore(Path directory, DocumentTypeManager types, StoreOptions options, SegmentFiles segmentFiles) {
        this.types = types;
        this.codec = new DocumentCodec(types);
        try {
            this.directory = new DataDirectory(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Recovery.Outcome recovered = new Recovery(this.directory, codec, table).run();
            this.clock = new TimestampClock(Clock.systemUTC(), recovered.lastTimestamp());
            this.transactionLog = new TransactionLog(this.directory, segmentFiles, recovered.lastSerial() + 1,
                                                     options.snapshotEveryEntries(), this::snapshotInBackground,
                                                     options.maxBufferedBytes());
            this.snapshotter = new Snapshotter(this.directory, transactionLog, table, recovered.snapshotSerial());
            if (recovered.entriesReplayed() >= options.snapshotEveryEntries()) snapshotter.requestSnapshot();
        }
        catch (IOException | RuntimeException e) {
            closeQuietly(this.directory);
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /** Puts a document, replacing any existing one, and waits until it is durable. */
    public Result put(DocumentPut put) { return join(putAsync(put)); }

    /** Updates a document, and waits until the change is durable. */
    public Result update(DocumentUpdate update) { return join(updateAsync(update)); }

    /** Removes a document, and waits until the removal is durable. */
    public Result remove(DocumentRemove remove) { return join(removeAsync(remove)); }

    /**
     * Puts a document, replacing any existing one. The returned future completes once the put is durable,
     * or exceptionally if it cannot be made durable.
     */
    public CompletableFuture<Result> putAsync(DocumentPut put) {
        ensureOpen();
        Document document = put.getDocument();
        DocumentId id = document.getId();
        Optional<Result> invalid = checkType(id, document.getDataType());
        if (invalid.isPresent()) return CompletableFuture.completedFuture(invalid.get());

        Document copy = document.clone();
        codec.encodeTensors(copy);
        byte[] payload = codec.serialize(copy);
        Map<ChangeListener, Object> prepared;
        try {
            prepared = prepare(copy);
        }
        catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(Result.badRequest(e.getMessage()));
        }
        synchronized (pendingWrites.lockFor(id)) {
            Version current = pendingWrites.newest(id);
            Optional<Result> rejected = TestAndSet.check(put.getCondition(), current.document(), codec, put.getCreateIfNonExistent());
            if (rejected.isPresent()) return current.thenReturn(rejected.get());
            return write(id, EntryKind.PUT, payload, copy, prepared, Result.ok(current.exists()));
        }
    }

    /**
     * Applies an update to a copy of the current document, or to a new, empty document if it is missing and
     * the update creates missing documents. The returned future completes once the change is durable.
     */
    public CompletableFuture<Result> updateAsync(DocumentUpdate update) {
        ensureOpen();
        DocumentId id = update.getId();
        Optional<Result> invalid = checkType(id, update.getDocumentType());
        if (invalid.isPresent()) return CompletableFuture.completedFuture(invalid.get());

        boolean create = update.getCreateIfNonExistent();
        synchronized (pendingWrites.lockFor(id)) {
            Version current = pendingWrites.newest(id);
            // Decoded once, for the condition and as the document to update
            Document updated = current.exists() ? current.document().decode(codec) : null;
            Optional<Result> rejected = TestAndSet.check(update.getCondition(), current.document(), updated, create);
            if (rejected.isPresent()) return current.thenReturn(rejected.get());
            if ( ! current.exists() && ! create) return current.thenReturn(Result.notFound());

            if (updated == null) updated = new Document(types.getDocumentType(update.getDocumentType().getName()), id);
            try {
                update.applyTo(updated);
            }
            catch (RuntimeException e) {
                return CompletableFuture.completedFuture(Result.badRequest("Could not apply update: " + e.getMessage()));
            }
            codec.encodeTensors(updated);
            Map<ChangeListener, Object> prepared;
            try {
                prepared = current.exists() ? prepareUpdate(update, updated) : prepare(updated);
            }
            catch (IllegalArgumentException e) {
                return CompletableFuture.completedFuture(Result.badRequest(e.getMessage()));
            }
            return write(id, EntryKind.PUT, codec.serialize(updated), updated, prepared, Result.ok(current.exists()));
        }
    }

    /** Removes a document. The returned future completes once the removal is durable. */
    public CompletableFuture<Result> removeAsync(DocumentRemove remove) {
        ensureOpen();
        DocumentId id = remove.getId();
        if ( ! id.hasDocType() || ! types.hasDocumentType(id.getDocType()))
            return CompletableFuture.completedFuture(Result.badRequest("Unknown document type in '" + id + "'"));

        synchronized (pendingWrites.lockFor(id)) {
            Version current = pendingWrites.newest(id);
            Optional<Result> rejected = TestAndSet.check(remove.getCondition(), current.document(), codec, false);
            if (rejected.isPresent()) return current.thenReturn(rejected.get());
            if ( ! current.exists()) return current.thenReturn(Result.notFound());
            return write(id, EntryKind.REMOVE, codec.serialize(id), null, Map.of(), Result.ok(true));
        }
    }

    /**
     * Returns the document, decoded for the caller, with its last-modified time set to the timestamp of the
     * write that made it (usable as a test-and-set required timestamp), or empty if it does not exist.
     */
    public Optional<Document> get(DocumentId id) {
        return table.get(id).map(stored -> stored.decode(codec));
    }

    /**
     * Returns a page of documents, in a stable order, and where to continue.
     *
     * @param documentType the type to visit, or null for all types
     * @param selection a Vespa document selection the documents must match, or null for all
     * @param continuation the continuation of the previous page, or null to start
     * @param maxDocuments the most documents to return, at least 1
     * @throws IllegalArgumentException if the type is unknown, or the selection or continuation is invalid
     */
    public Page visit(String documentType, String selection, String continuation, int maxDocuments) {
        if (maxDocuments < 1) throw new IllegalArgumentException("maxDocuments must be positive, but was " + maxDocuments);
        if (documentType != null && ! types.hasDocumentType(documentType))
            throw new IllegalArgumentException("Unknown document type '" + documentType + "'");
        DocumentSelection filter = selection == null || selection.isBlank() ? null : DocumentSelection.parse(selection);
        DocumentTable.Visited<Document> visited = table.visit(documentType, stored -> {
            Document document = stored.decode(codec);
            return filter == null || filter.matches(document) ? document : null;
        }, continuation, maxDocuments);
        return new Page(visited.documents(), visited.continuation());
    }

    /**
     * Gives every current document to the consumer, in no particular order, each decoded for it. Documents
     * changed meanwhile may be seen in either version.
     */
    public void forEach(Consumer<Document> consumer) {
        table.all().forEach(stored -> consumer.accept(stored.decode(codec)));
    }

    /** Returns the number of current documents. */
    public long documentCount() { return table.size(); }

    /** Registers a listener of the changes applied from now on. See {@link #subscribe} to also get the current documents. */
    public void addListener(ChangeListener listener) {
        listeners.add(listener);
    }

    /**
     * Calls {@link ChangeListener#onPut} for every current document and then registers the listener, with no
     * change applied in between, so that the listener sees each document exactly once and then every change.
     * The documents are prepared ({@link ChangeListener#prepare}) on all cores first (see {@link CatchUp}); those the listener
     * already holds ({@link ChangeListener#isCurrent}) are skipped.
     */
    public void subscribe(ChangeListener listener) {
        synchronized (applyLock) {
            listener.beginCatchUp();
            new CatchUp(listener, codec, Runtime.getRuntime().availableProcessors()).run(table.entries(), table.size());
            listener.endCatchUp();
            listeners.add(listener);
        }
    }

    public void removeListener(ChangeListener listener) {
        listeners.remove(listener);
    }

    /** Writes a snapshot of everything acknowledged so far, and deletes the log segments it covers. */
    public void snapshot() {
        ensureOpen();
        snapshotter.snapshotNow();
    }

    /** Completes all acknowledged writes, writes a final snapshot, and releases the data directory. */
    @Override
    public void close() {
        if ( ! closed.compareAndSet(false, true)) return;
        try {
            snapshotter.close();
        }
        finally {
            transactionLog.close();
            acknowledgements.shutdown();
            try {
                acknowledgements.awaitTermination(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeQuietly(directory);
        }
    }

    /** What each listener prepares for the new version of a document, on this (the writer's) thread. */
    private Map<ChangeListener, Object> prepare(Document document) {
        Map<ChangeListener, Object> prepared = new IdentityHashMap<>(4);
        for (ChangeListener listener : listeners) {
            Object change = listener.prepare(document);
            if (change != null) prepared.put(listener, change);
        }
        return prepared;
    }

    /** What each listener prepares for an update of an existing document, on this (the writer's) thread. */
    private Map<ChangeListener, Object> prepareUpdate(DocumentUpdate update, Document updated) {
        Map<ChangeListener, Object> prepared = new IdentityHashMap<>(4);
        for (ChangeListener listener : listeners) {
            Object change = listener.prepareUpdate(update, updated);
            if (change != null) prepared.put(listener, change);
        }
        return prepared;
    }

    private CompletableFuture<Result> write(DocumentId id, EntryKind kind, byte[] payload, Document newDocument,
                                            Map<ChangeListener, Object> prepared, Result result) {
        long timestamp = clock.next();
        if (newDocument != null) newDocument.setLastModified(timestamp);
        Write write = new Write(id, newDocument, newDocument == null ? null : new StoredDocument(payload, timestamp),
                                prepared, result);
        pendingWrites.begin(id, write.version);
        try {
            transactionLog.append(kind, timestamp, payload, write);
        }
        catch (RuntimeException e) {
            write.failed(e);
        }
        return write.future;
    }

    /**
     * Makes a durable write visible: runs on the commit thread, in log order. Returns why a listener could not apply it
     * (the write is then not acknowledged: see {@link Result.Status#NOT_APPLIED}), or null.
     */
    private String apply(Write write) {
        synchronized (applyLock) {
            if (write.stored != null) table.put(write.id, write.stored);
            else table.remove(write.id);
            pendingWrites.end(write.id, write.version);
            String failure = null;
            for (ChangeListener listener : listeners) {
                try {
                    Object prepared = write.prepared.get(listener);
                    if (write.document == null) listener.onRemove(write.id);
                    else if (prepared != null) listener.onPut(write.document, prepared);
                    else listener.onPut(write.document);
                }
                catch (RuntimeException e) {
                    log.log(Level.WARNING, "Change listener " + listener + " failed on " + write.id + "; the write is logged but not acknowledged", e);
                    if (failure == null) failure = "The write of " + write.id + " is logged, but could not be applied to the content nodes: " + e.getMessage();
                }
            }
            return failure;
        }
    }

    private void snapshotInBackground() {
        snapshotter.requestSnapshot();
    }

    private Optional<Result> checkType(DocumentId id, DocumentType type) {
        if ( ! types.hasDocumentType(type.getName()))
            return Optional.of(Result.badRequest("Unknown document type '" + type.getName() + "'"));
        if ( ! id.hasDocType() || ! id.getDocType().equals(type.getName()))
            return Optional.of(Result.badRequest("Document id '" + id + "' does not match document type '" + type.getName() + "'"));
        return Optional.empty();
    }

    private void ensureOpen() {
        if (closed.get()) throw new IllegalStateException("The document store is closed");
    }

    private static Result join(CompletableFuture<Result> future) {
        try {
            return future.join();
        }
        catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) throw cause;
            throw e;
        }
    }

    private static void closeQuietly(DataDirectory directory) {
        try {
            directory.close();
        }
        catch (IOException e) {
            log.log(Level.WARNING, "Could not release " + directory.path(), e);
        }
    }

    /**
     * A write waiting for its log entry to be durable. It holds the new document both as stored (the log
     * entry's bytes) and as the object the listeners are given, so they need not decode it; only the
     * stored form outlives the write.
     */
    private final class Write implements TransactionLog.CommitAction {

        private final DocumentId id;
        private final Document document; // for the listeners; null for a removal
        private final StoredDocument stored; // for the table; null for a removal
        private final Map<ChangeListener, Object> prepared;
        private final Result result;
        private final CompletableFuture<Result> future = new CompletableFuture<>();
        private final Version version;

        Write(DocumentId id, Document document, StoredDocument stored, Map<ChangeListener, Object> prepared, Result result) {
            this.id = id;
            this.document = document;
            this.stored = stored;
            this.prepared = prepared;
            this.result = result;
            this.version = Version.pending(stored, future);
        }

        @Override
        public void committed() {
            String failure = apply(this);
            Result outcome = failure == null ? result : Result.notApplied(failure);
            try {
                acknowledgements.execute(() -> future.complete(outcome));
            }
            catch (java.util.concurrent.RejectedExecutionException e) { // closing
                future.complete(outcome);
            }
        }

        @Override
        public void failed(Throwable cause) {
            pendingWrites.end(id, version);
            future.completeExceptionally(cause);
        }

    }

}
