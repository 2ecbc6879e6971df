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

import java.util.Optional;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Collectors;

/**
 * One content node (distribution key) of a content cluster, in memory: the documents routed to it (and
 * all documents of global types), matched and ranked as proton would, behind the search protocol.
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

    private final NodeIndexes indexes;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final RankProgramCache programs = new RankProgramCache();
    private final SearchThreads threads;
    private final Docsums docsums;

    /** A node that ranks each query on one thread. */
    public ContentNode(ContentClusterConfig config, int distributionKey) {
        this(config, distributionKey, SearchThreads.single());
    }

    /** A node that ranks each query on the threads the given policy chooses (shared with the other nodes). */
    public ContentNode(ContentClusterConfig config, int distributionKey, SearchThreads threads) {
        this.threads = threads;
        this.indexes = new NodeIndexes(config, distributionKey);
        this.docsums = new Docsums(indexes, programs);
    }

    public int distributionKey() { return indexes.distributionKey(); }

    /** Stores a document (processed by the indexing script), replacing any with the same id. */
    public void put(Document document) {
        DocumentIndex index = indexes.index(document.getDataType().getName());
        lock.writeLock().lock();
        try { index.put(document); }
        finally { lock.writeLock().unlock(); }
    }

    /** Removes a document; returns whether this node had it. */
    public boolean remove(DocumentId id) {
        DocumentIndex index = indexes.index(id.getDocType());
        lock.writeLock().lock();
        try { return index.remove(id); }
        finally { lock.writeLock().unlock(); }
    }

    /**
     * Applies an update (processed by the indexing script) to the stored document; returns the updated
     * document, or empty if there was none and the update does not create it.
     */
    public Optional<Document> update(DocumentUpdate update) {
        DocumentIndex index = indexes.index(update.getDocumentType().getName());
        lock.writeLock().lock();
        try {
            Optional<Document> existing = index.get(update.getId());
            Document document;
            if (existing.isPresent()) document = existing.get(); // a copy of its own
            else if (Boolean.TRUE.equals(update.getCreateIfNonExistent())) document = new Document(update.getDocumentType(), update.getId());
            else return Optional.empty();
            update.applyTo(document);
            if (existing.isPresent() && update.fieldPathUpdates().isEmpty())
                index.put(document, update.fieldUpdates().stream().map(u -> u.getField().getName()).collect(Collectors.toSet()));
            else index.put(document);
            return Optional.of(document);
        }
        finally { lock.writeLock().unlock(); }
    }

    /** The stored document with this id, if this node has it. */
    public Optional<Document> get(DocumentId id) {
        lock.readLock().lock();
        try { return indexes.index(id.getDocType()).get(id); }
        finally { lock.readLock().unlock(); }
    }

    /** The number of documents on this node, all types. */
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
        lock.readLock().lock();
        try (SearchThreads.InFlight inFlight = threads.enter();
             QueryExecution execution = new QueryExecution(ProtobufRequests.search(request), indexes, programs, threads)) {
            return ProtobufReplies.search(execution.run());
        }
        catch (IllegalArgumentException | IllegalStateException e) {
            return ProtobufReplies.searchError(e.getMessage(), activeDocuments());
        }
        finally { lock.readLock().unlock(); }
    }

    @Override
    public SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request) {
        lock.readLock().lock();
        try { return ProtobufReplies.docsums(docsums.write(ProtobufRequests.docsum(request))); }
        finally { lock.readLock().unlock(); }
    }

    /** The compiled rank programs this node keeps between queries. */
    RankProgramCache programCache() { return programs; }

    /** The rank assets of a schema, e.g. for verification. */
    public RankAssets assets(String schema) { return indexes.assets(schema); }

    @Override
    public void close() { indexes.close(); }

}
