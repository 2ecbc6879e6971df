package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.query.ProtobufRequests;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.rank.RankAssets;
import ai.dwell.runtime.rank.RankProgramCache;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.GlobalId;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Collectors;

/**
 * One content node (distribution key) of a content cluster, in memory: its copies of the documents routed to it (and
 * of all documents of global types), the active ones matched and ranked as proton would, behind the search protocol.
 * Searches run concurrently with each other; writes are exclusive.
 *
 * It keeps the documents (one index per type, {@link NodeIndexes}), the lock between searches and writes, and
 * the compiled rank programs kept between queries. A search is translated from the wire format once
 * ({@link ProtobufRequests}), run as a {@link QueryExecution}, and its result put in the wire format
 * ({@link ProtobufReplies}); summaries are written by {@link Docsums}.
 *
 * Build it from a {@link ContentClusterConfig} (see ai.dwell.runtime.serve.deploy.ContentClusterConfigs#from);
 * put documents that the indexing script has already processed (ai.dwell.runtime.index.IndexingScripts).
 */
public final class ContentNode implements SearchBackend, AutoCloseable {

    private static final Logger log = Logger.getLogger(ContentNode.class.getName());

    private volatile NodeIndexes indexes; // replaced once, when flushed state is loaded before serving
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final RankProgramCache programs = new RankProgramCache();
    private final NodeMetrics metrics = new NodeMetrics();
    private final SearchThreads threads;
    private volatile Docsums docsums;
    private final Object flushLock = new Object();
    private final Map<String, Long> flushedChanges = new HashMap<>(); // per type: its change count when last flushed or loaded
    private final Map<String, Long> flushedNotReady = new HashMap<>(); // per type: its not-ready copies' change count when last flushed or loaded
    private Path stateDirectory; // null: this node keeps no state on disk
    private Map<String, String> indexingIdentity = Map.of();
    private final Map<String, String> fingerprints = new java.util.concurrent.ConcurrentHashMap<>();

    /** A node alone that ranks each query on one thread: it indexes and searches every document it is given (see NodeIndexes). */
    public ContentNode(ContentClusterConfig config, int distributionKey) {
        this(config, distributionKey, SearchThreads.single());
    }

    /** A node alone that ranks each query on the threads the given policy chooses (shared with the other nodes). */
    public ContentNode(ContentClusterConfig config, int distributionKey, SearchThreads threads) {
        this(config, distributionKey, threads, false);
    }

    /**
     * A node that ranks each query on the threads the given policy chooses; if it places replicas, it holds each
     * document it is given as the copy its cluster's redundancy and ready copies make it (ContentClusterConfig#copy):
     * indexed and searched (active), indexed only (ready) or kept track of only (not ready).
     */
    public ContentNode(ContentClusterConfig config, int distributionKey, SearchThreads threads, boolean placesReplicas) {
        this.threads = threads;
        this.indexes = new NodeIndexes(config, distributionKey, placesReplicas);
        this.docsums = new Docsums(indexes, programs);
    }

    public int distributionKey() { return indexes.distributionKey(); }

    /** Stores a document (processed by the indexing script), replacing any with the same id. */
    public void put(Document document) { put(document, 0); }

    /** Stores a document (processed by the indexing script) written by the store at this timestamp, replacing any with the same id. */
    public void put(Document document, long timestamp) {
        String type = document.getDataType().getName();
        DocumentIndex index = indexes.index(type);
        NotReadyCopies notReady = indexes.notReady(type);
        GlobalId gid = DocumentIndex.globalId(document.getId());
        lock.writeLock().lock();
        try {
            if (indexes.copy(type, gid).indexed()) {
                index.setTimestamp(index.put(document), timestamp);
                notReady.remove(gid);
            }
            else {
                notReady.put(gid, timestamp);
                index.remove(document.getId());
            }
        }
        finally { lock.writeLock().unlock(); }
    }

    /** Removes a document; returns whether this node had it (a copy of it, indexed or not). */
    public boolean remove(DocumentId id) {
        DocumentIndex index = indexes.index(id.getDocType());
        NotReadyCopies notReady = indexes.notReady(id.getDocType());
        lock.writeLock().lock();
        try { return index.remove(id) | notReady.remove(DocumentIndex.globalId(id)); }
        finally { lock.writeLock().unlock(); }
    }

    /**
     * Applies an update written by the store at this timestamp to this node's copy: to the document, if its copy is
     * indexed (see {@link #update(DocumentUpdate, long)}); else the copy (kept track of only) is now of this version.
     * Returns whether the node had a copy, or the update created one.
     */
    public boolean applyUpdate(DocumentUpdate update, long timestamp) {
        String type = update.getDocumentType().getName();
        GlobalId gid = DocumentIndex.globalId(update.getId());
        if (indexes.copy(type, gid).indexed()) return update(update, timestamp).isPresent();
        NotReadyCopies notReady = indexes.notReady(type);
        lock.writeLock().lock();
        try {
            if ( ! notReady.contains(gid) && ! Boolean.TRUE.equals(update.getCreateIfNonExistent())) return false;
            notReady.put(gid, timestamp);
            return true;
        }
        finally { lock.writeLock().unlock(); }
    }

    /**
     * Applies an update (processed by the indexing script) to the stored document; returns the updated
     * document, or empty if there was none and the update does not create it.
     */
    public Optional<Document> update(DocumentUpdate update) { return update(update, 0); }

    /** As {@link #update(DocumentUpdate)}, for an update the store wrote at this timestamp. */
    public Optional<Document> update(DocumentUpdate update, long timestamp) {
        DocumentIndex index = indexes.index(update.getDocumentType().getName());
        lock.writeLock().lock();
        try {
            Optional<Document> existing = index.get(update.getId());
            Document document;
            if (existing.isPresent()) document = existing.get(); // a copy of its own
            else if (Boolean.TRUE.equals(update.getCreateIfNonExistent())) document = new Document(update.getDocumentType(), update.getId());
            else return Optional.empty();
            update.applyTo(document);
            int lid;
            if (existing.isPresent() && update.fieldPathUpdates().isEmpty())
                lid = index.put(document, update.fieldUpdates().stream().map(u -> u.getField().getName()).collect(Collectors.toSet()));
            else lid = index.put(document);
            index.setTimestamp(lid, timestamp);
            return Optional.of(document);
        }
        finally { lock.writeLock().unlock(); }
    }

    /** The stored document with this id, if this node has it indexed. */
    public Optional<Document> get(DocumentId id) {
        lock.readLock().lock();
        try { return indexes.index(id.getDocType()).get(id); }
        finally { lock.readLock().unlock(); }
    }

    /** The number of documents this node searches (its active copies), all types. */
    public long activeDocuments() {
        lock.readLock().lock();
        try { return indexes.activeDocuments(); }
        finally { lock.readLock().unlock(); }
    }

    @Override
    public SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request) {
        return ProtobufReplies.ping(distributionKey(), activeDocuments());
    }

    @Override
    public SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request) {
        return search(request, null);
    }

    /**
     * A streaming search: the request over these documents only (a streaming query's group or selection; those this
     * node does not hold are left out), matched and ranked as if the node held no others (see QueryMatcher#matchStreaming).
     */
    public SearchProtocol.SearchReply streamingSearch(SearchProtocol.SearchRequest request, java.util.Collection<com.yahoo.document.GlobalId> documents) {
        return search(request, java.util.Objects.requireNonNull(documents));
    }

    private SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request, java.util.Collection<com.yahoo.document.GlobalId> streamed) {
        long start = System.nanoTime();
        SearchProtocol.SearchReply reply = null;
        lock.readLock().lock();
        try (SearchThreads.InFlight inFlight = threads.enter();
             QueryExecution execution = new QueryExecution(ProtobufRequests.search(request), indexes, programs, threads, metrics, streamed)) {
            reply = ProtobufReplies.search(execution.run());
        }
        catch (IllegalArgumentException | IllegalStateException e) {
            reply = ProtobufReplies.searchError(e.getMessage(), activeDocuments());
        }
        finally {
            lock.readLock().unlock();
            metrics.query(System.nanoTime() - start, reply == null ? 0 : reply.getTotalHitCount(), reply == null || reply.getErrorsCount() > 0);
        }
        return reply;
    }

    @Override
    public SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request) {
        long start = System.nanoTime();
        lock.readLock().lock();
        try { return ProtobufReplies.docsums(docsums.write(ProtobufRequests.docsum(request))); }
        finally {
            lock.readLock().unlock();
            metrics.docsums(System.nanoTime() - start, request.getGlobalIdsCount());
        }
    }

    /** The summaries of a streaming search's hits: summary features computed as the search over these documents ranked them. */
    public SearchProtocol.DocsumReply streamingDocsums(SearchProtocol.DocsumRequest request, java.util.Collection<com.yahoo.document.GlobalId> documents) {
        long start = System.nanoTime();
        lock.readLock().lock();
        try { return ProtobufReplies.docsums(docsums.write(ProtobufRequests.docsum(request), java.util.Objects.requireNonNull(documents))); }
        finally {
            lock.readLock().unlock();
            metrics.docsums(System.nanoTime() - start, request.getGlobalIdsCount());
        }
    }

    /** What this node counted of the requests it served. */
    public NodeMetrics metrics() { return metrics; }

    /** The documents this node searches, by document type. */
    public Map<String, Long> activeDocumentsByType() {
        Map<String, Long> counts = new java.util.TreeMap<>();
        documentCounts().forEach((type, documents) -> counts.put(type, documents.active()));
        return counts;
    }

    /**
     * The copies of documents this node holds, by document type, as proton counts them per document database:
     * total (every copy, content.proton.documentdb.documents.total), ready (the indexed ones, .ready) and active
     * (the searched ones, .active).
     */
    public record DocumentCounts(long total, long ready, long active) {}

    /** The documents this node holds, by document type. */
    public Map<String, DocumentCounts> documentCounts() {
        lock.readLock().lock();
        try {
            Map<String, DocumentCounts> counts = new java.util.TreeMap<>();
            indexes.all().forEach((type, index) -> counts.put(type, new DocumentCounts(index.documentCount() + indexes.notReady(type).size(),
                                                                                       index.documentCount(), index.searchedCount())));
            return counts;
        }
        finally { lock.readLock().unlock(); }
    }

    /**
     * Makes this node keep its index state in the directory: {@link #loadState} reads it, {@link #flush} writes it.
     *
     * @param indexing per document type, what besides its schema decides its index content (its indexing statements
     *                 and the identity of the embedders they use), part of each state's fingerprint
     */
    public void keepStateIn(Path directory, Map<String, String> indexing) {
        this.stateDirectory = directory;
        this.indexingIdentity = Map.copyOf(indexing);
        this.fingerprints.clear();
    }

    /**
     * Loads the flushed state of every document type whose state file is whole and was written for the deployed
     * schema and indexing; the others start empty (a WARNING names the file and why), to be indexed from the store.
     * Call before this serves or is written to. Returns the document types loaded.
     */
    public Set<String> loadState() {
        if (stateDirectory == null) return Set.of();
        synchronized (flushLock) {
            Set<String> notLoaded = new HashSet<>();
            while (true) {
                NodeIndexes fresh = new NodeIndexes(indexes.config(), distributionKey(), indexes.placesReplicas());
                String failed = null;
                for (DocumentIndex index : fresh.all().values()) {
                    if (notLoaded.contains(index.name())) continue;
                    IndexStateFile file = stateFile(index.name());
                    if ( ! Files.exists(file.path())) {
                        log.info("No index state of " + index.name() + " on node " + distributionKey() + " (" + file.path() + "): indexing it from the store");
                        notLoaded.add(index.name());
                        continue;
                    }
                    long start = System.nanoTime();
                    try {
                        file.read(index);
                        log.info("Loaded index of " + index.name() + " on node " + distributionKey() + ": " + index.documentCount() +
                                 " documents in " + (System.nanoTime() - start) / 1_000_000 + " ms");
                    }
                    catch (IOException | RuntimeException e) {
                        log.warning("Index state " + file.path() + " is not used, " + index.name() + " on node " + distributionKey() +
                                    " is indexed again from the store: " + e.getMessage());
                        notLoaded.add(index.name());
                        failed = index.name();
                        break;
                    }
                }
                if (failed != null) {
                    fresh.close();
                    continue; // again, into fresh indexes, without the type that failed
                }
                for (String type : fresh.all().keySet()) loadNotReady(type, fresh.notReady(type));
                fresh.resolveReferences();
                lock.writeLock().lock();
                try {
                    NodeIndexes old = indexes;
                    indexes = fresh;
                    docsums = new Docsums(fresh, programs);
                    old.close();
                    flushedChanges.clear();
                    for (DocumentIndex index : fresh.all().values()) {
                        if ( ! notLoaded.contains(index.name())) flushedChanges.put(index.name(), index.changes());
                        flushedNotReady.put(index.name(), fresh.notReady(index.name()).changes());
                    }
                }
                finally { lock.writeLock().unlock(); }
                Set<String> loaded = new HashSet<>(fresh.all().keySet());
                loaded.removeAll(notLoaded);
                return loaded;
            }
        }
    }

    /**
     * Loads the not-ready copies of a type flushed by {@link #flush}, if their file is there and whole; else they start
     * empty, to be added by the catch-up with the store (cheap: no indexing).
     */
    private void loadNotReady(String type, NotReadyCopies copies) {
        Path file = notReadyFile(type);
        if ( ! Files.exists(file)) return;
        try {
            copies.read(file);
            log.info("Loaded " + copies.size() + " not-ready copies of " + type + " on node " + distributionKey());
        }
        catch (IOException | RuntimeException e) {
            log.warning("Not-ready copies " + file + " are not used, they are taken from the store again: " + e.getMessage());
        }
    }

    private Path notReadyFile(String type) { return stateDirectory.resolve(type + ".notready"); }

    /**
     * Writes the state of each document type that changed since it was last written or loaded, each to a
     * temporary file, fsynced and renamed over the previous one. Searches go on meanwhile; writes to this node wait
     * while a type is written. Returns the bytes written.
     */
    public long flush() throws IOException {
        if (stateDirectory == null) return 0;
        synchronized (flushLock) {
            Files.createDirectories(stateDirectory);
            long written = 0;
            for (String type : List.copyOf(indexes.all().keySet())) {
                lock.readLock().lock();
                try {
                    DocumentIndex index = indexes.index(type);
                    long changes = index.changes();
                    Long flushed = flushedChanges.get(type);
                    if (flushed != null && flushed == changes) continue;
                    long start = System.nanoTime();
                    written += stateFile(type).write(index);
                    flushedChanges.put(type, changes);
                    log.fine(() -> "Flushed " + type + " on node " + distributionKey() + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
                }
                finally { lock.readLock().unlock(); }
            }
            for (String type : List.copyOf(indexes.all().keySet())) {
                lock.readLock().lock();
                try {
                    NotReadyCopies copies = indexes.notReady(type);
                    Long flushed = flushedNotReady.get(type);
                    if (flushed == null ? copies.size() == 0 && ! Files.exists(notReadyFile(type)) : flushed == copies.changes()) continue;
                    written += copies.write(notReadyFile(type));
                    flushedNotReady.put(type, copies.changes());
                }
                finally { lock.readLock().unlock(); }
            }
            return written;
        }
    }

    /**
     * Whether this node holds the document in the version the store wrote at this timestamp; if so it is kept by
     * {@link #endCatchUp}. Used when catching up with the store after loading state.
     */
    public boolean verify(DocumentId id, long timestamp) {
        String type = id.getDocType();
        DocumentIndex index = indexes.index(type);
        GlobalId gid = DocumentIndex.globalId(id);
        lock.writeLock().lock();
        try { // the copy must be held as the kind this node should hold (the cluster's redundancy may have changed)
            return indexes.copy(type, gid).indexed() ? index.verify(gid, timestamp) : indexes.notReady(type).verify(gid, timestamp);
        }
        finally { lock.writeLock().unlock(); }
    }

    /** Starts catching up with the store: from now, what is neither verified nor written is removed by {@link #endCatchUp}. */
    public void beginCatchUp() {
        lock.writeLock().lock();
        try {
            indexes.all().values().forEach(DocumentIndex::beginCatchUp);
            indexes.all().keySet().forEach(type -> indexes.notReady(type).beginCatchUp());
        }
        finally { lock.writeLock().unlock(); }
    }

    /** Ends a catch-up: removes the documents the store no longer has. Returns how many. */
    public int endCatchUp() {
        lock.writeLock().lock();
        try {
            return indexes.all().values().stream().mapToInt(DocumentIndex::removeUnverified).sum()
                   + indexes.all().keySet().stream().mapToInt(type -> indexes.notReady(type).removeUnverified()).sum();
        }
        finally { lock.writeLock().unlock(); }
    }

    private IndexStateFile stateFile(String type) {
        String fingerprint = fingerprints.computeIfAbsent(type, t -> IndexStateFile.fingerprint(indexes.config(), indexes.config().schema(t),
                                                                                              indexingIdentity.getOrDefault(t, "")));
        return new IndexStateFile(stateDirectory, type, fingerprint);
    }

    /** The compiled rank programs this node keeps between queries. */
    RankProgramCache programCache() { return programs; }

    /**
     * How often a query or summary request took a compiled rank program from the cache, and how often one was compiled,
     * since the node started: content.dwell.rank_program.reused.count and content.dwell.rank_program.compiled.count
     * (dwell's own; proton does not cache per query).
     */
    public Map<String, Number> rankProgramCounts() {
        return Map.of("content.dwell.rank_program.reused.count", programs.hits(),
                      "content.dwell.rank_program.compiled.count", programs.compiles());
    }

    /** The rank assets of a schema, e.g. for verification. */
    public RankAssets assets(String schema) { return indexes.assets(schema); }

    @Override
    public void close() { indexes.close(); }

}
