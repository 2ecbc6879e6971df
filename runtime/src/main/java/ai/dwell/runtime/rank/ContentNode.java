package ai.dwell.runtime.rank;

import ai.dwell.runtime.format.TensorBytes;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.SchemaConfigs;
import ai.dwell.runtime.match.MatchPhaseLimiter;
import ai.dwell.runtime.match.MatchResult;
import ai.dwell.runtime.match.QueryMatcher;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.GlobalId;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Cursor;
import com.yahoo.slime.Slime;
import com.yahoo.vespa.config.search.SummaryConfig;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One content node (distribution key) of a content cluster, in memory: the documents routed to it (and
 * all documents of global types), matched and ranked as proton would, behind the search protocol.
 * Searches run concurrently with each other; writes are exclusive.
 *
 * Build it from a {@link ContentClusterConfig} (see ai.dwell.runtime.serve.deploy.ContentClusterConfigs#from);
 * put documents that the indexing script has already processed (ai.dwell.runtime.index.IndexingScripts).
 */
public final class ContentNode implements SearchBackend, AutoCloseable {

    private final ContentClusterConfig config;
    private final int distributionKey;
    private final Map<String, DocumentIndex> indexes = new LinkedHashMap<>();
    private final Map<String, RankAssets> assets = new LinkedHashMap<>();
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final RankProgramCache programs = new RankProgramCache();
    private final SearchThreads threads;

    /** A node that ranks each query on one thread. */
    public ContentNode(ContentClusterConfig config, int distributionKey) {
        this(config, distributionKey, SearchThreads.single());
    }

    /** A node that ranks each query on the threads the given policy chooses (shared with the other nodes). */
    public ContentNode(ContentClusterConfig config, int distributionKey, SearchThreads threads) {
        this.threads = threads;
        if ( ! config.distributionKeys().contains(distributionKey))
            throw new IllegalArgumentException("No node with distribution key " + distributionKey + " in " + config.clusterName() + ": " + config.distributionKeys());
        this.config = config;
        this.distributionKey = distributionKey;
        DocumentTypeManager types = new DocumentTypeManager(config.documentManager());
        for (SchemaConfigs schema : config.schemas().values()) {
            indexes.put(schema.name(), new DocumentIndex(schema, types));
            assets.put(schema.name(), new RankAssets(schema, config.packageDir()));
        }
        for (DocumentIndex index : indexes.values()) index.importFrom(indexes);
    }

    public int distributionKey() { return distributionKey; }

    /** Stores a document (processed by the indexing script), replacing any with the same id. */
    public void put(Document document) {
        DocumentIndex index = index(document.getDataType().getName());
        lock.writeLock().lock();
        try { index.put(document); }
        finally { lock.writeLock().unlock(); }
    }

    /** Removes a document; returns whether this node had it. */
    public boolean remove(DocumentId id) {
        DocumentIndex index = index(id.getDocType());
        lock.writeLock().lock();
        try { return index.remove(id); }
        finally { lock.writeLock().unlock(); }
    }

    /**
     * Applies an update (processed by the indexing script) to the stored document; returns the updated
     * document, or empty if there was none and the update does not create it.
     */
    public Optional<Document> update(DocumentUpdate update) {
        DocumentIndex index = index(update.getDocumentType().getName());
        lock.writeLock().lock();
        try {
            Optional<Document> existing = index.get(update.getId());
            Document document;
            if (existing.isPresent()) document = existing.get(); // a copy of its own
            else if (Boolean.TRUE.equals(update.getCreateIfNonExistent())) document = new Document(update.getDocumentType(), update.getId());
            else return Optional.empty();
            update.applyTo(document);
            if (existing.isPresent() && update.fieldPathUpdates().isEmpty())
                index.put(document, update.fieldUpdates().stream().map(u -> u.getField().getName()).collect(java.util.stream.Collectors.toSet()));
            else index.put(document);
            return Optional.of(document);
        }
        finally { lock.writeLock().unlock(); }
    }

    /** The stored document with this id, if this node has it. */
    public Optional<Document> get(DocumentId id) {
        lock.readLock().lock();
        try { return index(id.getDocType()).get(id); }
        finally { lock.readLock().unlock(); }
    }

    /** The number of documents on this node, all types. */
    public long activeDocuments() {
        lock.readLock().lock();
        try { return indexes.values().stream().mapToLong(DocumentIndex::documentCount).sum(); }
        finally { lock.readLock().unlock(); }
    }

    @Override
    public SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request) {
        long active = activeDocuments();
        return SearchProtocol.MonitorReply.newBuilder().setOnline(true).setDistributionKey(distributionKey)
                                          .setActiveDocs(active).setTargetActiveDocs(active).setIsBlockingWrites(false).build();
    }

    @Override
    public SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request) {
        lock.readLock().lock();
        try (SearchThreads.InFlight inFlight = threads.enter()) {
            return doSearch(request);
        }
        catch (IllegalArgumentException | IllegalStateException e) {
            long active = activeDocuments();
            return SearchProtocol.SearchReply.newBuilder().addErrors(SearchProtocol.Error.newBuilder().setMessage(e.getMessage()))
                                             .setCoverageDocs(0).setActiveDocs(active).setTargetActiveDocs(active).build();
        }
        finally { lock.readLock().unlock(); }
    }

    private SearchProtocol.SearchReply doSearch(SearchProtocol.SearchRequest request) {
        List<RankProgramCache.Lease> leases = new ArrayList<>();
        try {
            return doSearch(request, leases);
        }
        finally {
            leases.forEach(RankProgramCache.Lease::close);
        }
    }

    private SearchProtocol.SearchReply doSearch(SearchProtocol.SearchRequest request, List<RankProgramCache.Lease> leases) {
        if ( ! request.getQueryTreeBlob().isEmpty() && ! request.hasQueryTree())
            throw new UnsupportedFeatureException("Only the protobuf query_tree is supported, not query_tree_blob");
        String profileName = request.getRankProfile().isEmpty() ? "default" : request.getRankProfile();
        QueryProperties query = QueryProperties.of(request);
        long total = 0;
        List<RankedHit> all = new ArrayList<>();
        SortedHits sorted = request.getSortingCount() > 0 ? new SortedHits(SortField.of(request.getSortingList())) : null;
        Map<String, RankProgram> programs = new LinkedHashMap<>();
        List<DocumentIndex> searched = searched(request.getDocumentType()).stream()
                .filter(index -> assets.get(index.name()).profile(profileName).isPresent()).toList();
        if (searched.isEmpty())
            throw new UnsupportedFeatureException("No rank profile '" + profileName + "' in " + (request.getDocumentType().isEmpty() ? "any schema" : "schema '" + request.getDocumentType() + "'"));
        GroupingRunner grouping = null;
        if ( ! request.getGroupingBlob().isEmpty()) {
            if (searched.size() != 1)
                throw new UnsupportedFeatureException("Grouping over several document types (" + searched.stream().map(DocumentIndex::name).toList() + ") is not supported by this content engine");
            grouping = new GroupingRunner(GroupingBlob.read(request.getGroupingBlob()), searched.get(0), distributionKey);
        }
        long active = activeDocumentsUnlocked();
        long covered = active;
        boolean degraded = false;
        boolean softTimeout = false;
        long start = System.nanoTime();
        long deadline = request.getTimeout() > 0 ? start + request.getTimeout() * 1_000_000L : Long.MAX_VALUE;
        SearchTrace trace = request.getTraceLevel() > 0 ? new SearchTrace(distributionKey, start) : null;
        for (DocumentIndex index : searched) {
            if (System.nanoTime() > deadline) { // proton's soft timeout: what is left is not covered
                softTimeout = true;
                covered -= index.documentCount();
                if (trace != null) trace.event("soft timeout: skipping " + index.name());
                continue;
            }
            RankProfile profile = assets.get(index.name()).profile(profileName).get();
            long matchStart = System.nanoTime();
            MatchResult match = QueryMatcher.match(index, request.getQueryTree(), NearestNeighborContext.of(query, profile));
            if (trace != null) trace.phase(index.name(), "match", matchStart, match.hits().cardinality() + " hits");
            BitSet hits = match.hits();
            UnsupportedSettings.check(profile, query);
            Optional<MatchPhaseLimiter> limiter = MatchPhaseSettings.limiter(profile, query, index);
            if (limiter.isPresent()) {
                MatchPhaseLimiter.Limited limited = limiter.get().limit(hits, index.lidLimit(), request.getQueryTree());
                hits = limited.hits();
                if (limited.degraded()) {
                    degraded = true;
                    covered -= index.documentCount() - coveredDocuments(index, limited.coveredDocIdSpace());
                }
            }
            total += hits.cardinality();
            long compileStart = System.nanoTime();
            MatchResult matched = match;
            RankProgramCache.Lease lease = this.programs.borrow(profile, assets.get(index.name()), index, () -> matched, query);
            leases.add(lease);
            RankProgram program = lease.program();
            if (trace != null) trace.phase(index.name(), "rank program", compileStart, lease.cached() ? "cached" : "compiled");
            programs.put(index.name(), program);
            int rerank = query.string("vespa.hitcollector.heapsize").map(Integer::parseInt).orElse(profile.rerankCount());
            // grouping and sorting see every match; otherwise only the best offset + hits are returned
            int wanted = grouping != null || sorted != null ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, (long) request.getOffset() + request.getHits());
            // programs that read the query's terms are compiled per query: one per thread would cost more than it saves
            int threadCount = program.readsTerms() ? 1 : threads.threadsFor(profile, query, hits.cardinality());
            RankProgram[] threadPrograms = new RankProgram[threadCount];
            threadPrograms[0] = program;
            for (int t = 1; t < threadCount; t++) {
                RankProgramCache.Lease threadLease = this.programs.borrow(profile, assets.get(index.name()), index, () -> matched, query);
                leases.add(threadLease);
                threadPrograms[t] = threadLease.program();
            }
            Ranker.Ranked ranked = Ranker.rank(index.name(), threadPrograms, hits, rerank, wanted, threads.runner());
            if (trace != null) {
                trace.duration(index.name(), "first phase", ranked.firstPhaseNanos(), ranked.matched() + " ranked with '" + profileName + "' on "
                                                                                      + threadCount + " thread" + (threadCount == 1 ? "" : "s"));
                trace.duration(index.name(), "second phase", ranked.secondPhaseNanos(), ranked.reranked() + " reranked");
            }
            if (grouping != null) for (int i = 0; i < ranked.size(); i++) grouping.add(ranked.lids()[i], ranked.relevance()[i], i);
            if (sorted != null) {
                sorted.add(index, ranked);
                continue;
            }
            int returned = (int) Math.min(ranked.size(), (long) request.getOffset() + request.getHits());
            for (int i = 0; i < returned; i++) all.add(new RankedHit(index.name(), ranked.lids()[i], ranked.relevance()[i], null));
        }
        if (sorted != null) all = sorted.first((int) Math.min(Integer.MAX_VALUE, (long) request.getOffset() + request.getHits()));
        else all.sort(Comparator.comparingDouble(RankedHit::relevance).reversed());
        var reply = SearchProtocol.SearchReply.newBuilder().setTotalHitCount(total).setDegradedByMatchPhase(degraded)
                                              .setDegradedBySoftTimeout(softTimeout)
                                              .setCoverageDocs(covered).setActiveDocs(active).setTargetActiveDocs(active);
        if (grouping != null) {
            long groupingStart = System.nanoTime();
            reply.setGroupingBlob(GroupingBlob.write(grouping.finish()));
            if (trace != null) trace.phase("", "grouping", groupingStart, "");
        }
        if (trace != null) reply.setSlimeTrace(ByteString.copyFrom(trace.finish()));
        int from = Math.min(request.getOffset(), all.size()), to = (int) Math.min((long) request.getOffset() + request.getHits(), all.size());
        List<String> featureNames = null;
        Map<String, List<RankProgram.OutputFeature>> featuresByType = new LinkedHashMap<>();
        for (RankedHit hit : all.subList(from, to)) {
            RankProgram program = programs.get(hit.documentType());
            var protoHit = SearchProtocol.Hit.newBuilder()
                    .setGlobalId(ByteString.copyFrom(indexes.get(hit.documentType()).globalId(hit.lid()).getRawId()))
                    .setRelevance(hit.relevance());
            if (hit.sortData() != null) protoHit.setSortData(ByteString.copyFrom(hit.sortData()));
            List<RankProgram.OutputFeature> features = featuresByType.computeIfAbsent(hit.documentType(), t -> program.matchFeatures());
            if ( ! features.isEmpty()) {
                if (featureNames == null) {
                    featureNames = features.stream().map(RankProgram.OutputFeature::name).toList();
                    reply.addAllMatchFeatureNames(featureNames);
                }
                for (RankProgram.OutputFeature feature : features) protoHit.addMatchFeatures(feature(feature.node(), hit.lid()));
            }
            reply.addHits(protoHit);
        }
        return reply.build();
    }

    /** The active documents a covered document id space stands for, as proton's updateCoverage scales it. */
    private static long coveredDocuments(DocumentIndex index, long coveredSpace) {
        long space = Math.max(1, index.lidLimit());
        long estimate = coveredSpace >= space ? space : coveredSpace + 1;
        return estimate * index.documentCount() / space;
    }

    private static SearchProtocol.Feature feature(Node node, int lid) {
        if (node.type().rank() == 0) return SearchProtocol.Feature.newBuilder().setNumber(node.number(lid)).build();
        return SearchProtocol.Feature.newBuilder().setTensor(ByteString.copyFrom(TensorBytes.encode(node.tensor(lid)))).build();
    }

    @Override
    public SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request) {
        lock.readLock().lock();
        try {
            Slime slime = new Slime();
            Cursor root = slime.setObject();
            Cursor docsums = root.setArray("docsums");
            Cursor errors = root.setArray("errors");
            QueryProperties query = QueryProperties.of(request);
            Set<String> fields = new HashSet<>(request.getFieldsList());
            Map<String, RankProgramCache.Lease> programs = new LinkedHashMap<>();
            try {
                for (ByteString rawGid : request.getGlobalIdsList()) {
                    Cursor entry = docsums.addObject();
                    GlobalId gid = new GlobalId(rawGid.toByteArray());
                    for (DocumentIndex index : searched(request.getDocumentType())) {
                        int lid = index.localId(gid);
                        if (lid < 0) continue;
                        try {
                            SummaryConfig.Classes summaryClass = summaryClass(index, request.getSummaryClass());
                            DocsumWriter.FeatureSource features = featureSource(programs, index, request, query);
                            DocsumWriter.write(entry.setObject("docsum"), index, lid, summaryClass, fields, features);
                        }
                        catch (IllegalArgumentException e) {
                            errors.addObject().setString("message", e.getMessage());
                        }
                        break;
                    }
                }
            }
            finally {
                programs.values().forEach(RankProgramCache.Lease::close);
            }
            return SearchProtocol.DocsumReply.newBuilder().setSlimeSummaries(ByteString.copyFrom(BinaryFormat.encode(slime))).build();
        }
        finally { lock.readLock().unlock(); }
    }

    private DocsumWriter.FeatureSource featureSource(Map<String, RankProgramCache.Lease> programs, DocumentIndex index,
                                                     SearchProtocol.DocsumRequest request, QueryProperties query) {
        String profileName = request.getRankProfile().isEmpty() ? "default" : request.getRankProfile();
        Optional<RankProfile> profile = assets.get(index.name()).profile(profileName);
        if (profile.isEmpty()) return null;
        return new DocsumWriter.FeatureSource() {
            private RankProgram program() {
                return programs.computeIfAbsent(index.name(), name -> ContentNode.this.programs.borrow(
                        profile.get(), assets.get(name), index,
                        () -> QueryMatcher.match(index, request.getQueryTree(), NearestNeighborContext.of(query, profile.get())), query)).program();
            }
            @Override public List<RankProgram.OutputFeature> summaryFeatures() { return program().summaryFeatures(); }
            @Override public List<RankProgram.OutputFeature> matchFeatures() { return program().matchFeatures(); }
        };
    }

    private static SummaryConfig.Classes summaryClass(DocumentIndex index, String name) {
        SummaryConfig summary = index.schema().summary();
        for (SummaryConfig.Classes c : summary.classes())
            if (name.isEmpty() ? c.id() == summary.defaultsummaryid() : c.name().equals(name)) return c;
        throw new IllegalArgumentException("No summary class '" + name + "' in schema '" + index.name() + "'");
    }

    private List<DocumentIndex> searched(String documentType) {
        if (documentType.isEmpty()) return List.copyOf(indexes.values());
        return List.of(index(documentType));
    }

    private DocumentIndex index(String documentType) {
        DocumentIndex index = indexes.get(documentType);
        if (index == null) throw new IllegalArgumentException("No document type '" + documentType + "' in content cluster '" + config.clusterName() + "'");
        return index;
    }

    private long activeDocumentsUnlocked() {
        return indexes.values().stream().mapToLong(DocumentIndex::documentCount).sum();
    }

    /** The compiled rank programs this node keeps between queries. */
    RankProgramCache programCache() { return programs; }

    /** The rank assets of a schema, e.g. for verification. */
    public RankAssets assets(String schema) { return assets.get(schema); }

    @Override
    public void close() { assets.values().forEach(RankAssets::close); }

}
