package ai.dwell.runtime.serve;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.RankSetupVerifier;
import ai.dwell.runtime.serve.configserver.Deployments;
import ai.dwell.runtime.serve.documentapi.DocumentAccesses;
import ai.dwell.runtime.serve.feed.DocprocRoute;
import ai.dwell.runtime.serve.feed.FeedBlockingSink;
import ai.dwell.runtime.serve.feed.FeedPipeline;
import ai.dwell.runtime.serve.feed.IndexFollower;
import ai.dwell.runtime.serve.feed.CachingEmbedder;
import ai.dwell.runtime.serve.feed.StoreSink;
import com.yahoo.language.process.Embedder;
import ai.dwell.runtime.storage.DocumentStore;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.config.model.api.ConfigChangeAction;
import com.yahoo.config.model.api.ConfigChangeRefeedAction;
import com.yahoo.config.model.api.ConfigChangeReindexAction;
import com.yahoo.vespa.model.VespaModel;
import ai.dwell.runtime.serve.container.ContainerHost;
import ai.dwell.runtime.serve.container.ContainerHosts;
import ai.dwell.runtime.serve.container.LocalHosts;
import ai.dwell.runtime.serve.container.PackageEmbedders;
import ai.dwell.runtime.serve.container.PackageLinguistics;
import com.yahoo.language.Linguistics;
import ai.dwell.runtime.serve.deploy.ApplicationArchive;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.dwell.runtime.serve.deploy.FeedBlocks;
import ai.dwell.runtime.serve.deploy.PackageFiles;
import ai.dwell.runtime.serve.deploy.PackageVariants;
import ai.dwell.runtime.serve.deploy.InvalidApplicationException;
import ai.dwell.runtime.serve.deploy.LargeRankExpressions;
import ai.dwell.runtime.serve.deploy.ModelBuilder;
import ai.dwell.runtime.serve.deploy.PackageServices;
import ai.dwell.runtime.serve.deploy.StreamingTypes;
import ai.dwell.runtime.serve.deploy.ServedPackage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The runtime: deploys packages and keeps the active one served. A package is unpacked and
 * validated first; only a valid package replaces the active generation, so an invalid deploy
 * changes nothing.
 */
public class Runtime implements Deployments, AutoCloseable {

    private static final Logger log = Logger.getLogger(Runtime.class.getName());

    private final DataDirectory data;
    private final LocalHosts hosts;
    /**
     * Texts whose embeddings indexing remembers in memory (see CachingEmbedder): about 0.2 GB of 384-float vectors
     * at most. Every text embedded is also kept on disk, in the data directory's embeddings/, for the next start.
     */
    private static final int EMBEDDING_CACHE_SIZE = Integer.getInteger("dwell.embeddingCacheSize", 100_000);
    private static final String INDEXING_PROCESSOR = "/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor";

    private Generation active;
    private volatile Generation serving; // active, for readers that must not wait for a deploy (metrics)
    private volatile Starting starting;  // the generation being activated, from just before its container starts

    /** What the metrics see of a generation whose content nodes serve before its container is up. */
    private record Starting(VespaModel model, ContentServing content) {}
    private volatile boolean activating = false;
    private DocumentStore store;
    private DocumentmanagerConfig storeTypes;

    private final int shards;

    /**
     * @param shards the number of content nodes to serve each content cluster with, or 0 for the
     *               nodes the package declares
     */
    public Runtime(DataDirectory data, LocalHosts hosts, int shards) {
        this.data = data;
        this.hosts = hosts;
        this.shards = shards;
    }

    /**
     * The content nodes serving now, or null while none are (before the first activation, or during one until its
     * container starts): as proton's metrics, theirs are there before the container answers queries.
     */
    public ContentServing contentServing() {
        Starting next = starting; // read first: an activation sets serving before it clears starting
        Generation generation = serving;
        if (generation != null) return generation.content();
        return next == null ? null : next.content();
    }

    /** Vespa's model of the package served now (or of the generation whose container is starting), or null. */
    public VespaModel servingModel() {
        Starting next = starting; // read first: an activation sets serving before it clears starting
        Generation generation = serving;
        if (generation != null) return generation.model();
        return next == null ? null : next.model();
    }

    /** The port of the container serving now (8080 while none is). */
    public int containerPort() {
        Generation generation = serving;
        return generation == null ? 8080 : generation.services().containerPort();
    }

    /** Serves the last activated package again, if there is one: after a restart, also after kill -9. */
    public synchronized void recover() {
        if (active != null) { // a deploy reached the config server before this (it starts first): that is what serves now
            log.info("Not recovering: session " + active.sessionId() + " was deployed while the runtime started");
            return;
        }
        var session = data.active();
        if (session.isEmpty()) return;
        Path dir = data.application(session.getAsLong());
        try {
            log.info("Recovering session " + session.getAsLong() + " from " + dir);
            activate(session.getAsLong(), ApplicationArchive.packageRoot(dir));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized Active deploy(byte[] zip) {
        long session = data.nextSessionId();
        Path dir = data.application(session);
        try {
            return toActive(activate(session, ApplicationArchive.unpack(zip, dir)));
        }
        catch (InvalidApplicationException e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    /** Deploys the package in this directory (as `dwell start DIR` does). */
    public synchronized Active deploy(Path packageDir) {
        long session = data.nextSessionId();
        Path dir = data.application(session);
        try {
            Files.createDirectories(dir.getParent());
            PackageFiles.copy(packageDir, dir);
            return toActive(activate(session, dir));
        }
        catch (InvalidApplicationException e) {
            deleteQuietly(dir);
            throw e;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized Active active() {
        return active == null ? null : toActive(active);
    }

    @Override
    public boolean activating() { return activating; }

    private Generation activate(long session, Path deployedDir) {
        activating = true;
        try { return activateNow(session, deployedDir); }
        finally { activating = false; }
    }

    private Generation activateNow(long session, Path deployedDir) {
        long start = System.nanoTime();
        PackageVariants.resolve(deployedDir);   // deploy: and preprocess: for this zone, as a config server does first
        ModelBuilder.Built built = ModelBuilder.build(deployedDir);
        PackageServices declared = PackageServices.of(built.model(), deployedDir);
        Path served = ServedPackage.prepare(deployedDir, data.served(session), shards, built.model(), declared);
        // Everything is served with the model of what the container serves, the working copy: its
        // content nodes may be replaced (shards), and its additions shift the ports Vespa gives the
        // services on a host the container shares with a content node (a package without hosts.xml),
        // so a content node listens where the container's dispatcher, built from this model, looks.
        // the change from the previous generation, compared as Vespa's config server compares models (served copies both)
        ModelBuilder.Built servedBuilt = ModelBuilder.build(served, active == null ? Optional.empty() : Optional.of(active.model()));
        VespaModel model = servedBuilt.model();
        LargeRankExpressions.writeFiles(model, served); // the container's global phase reads them as distributed files
        PackageServices services = PackageServices.of(model, deployedDir);
        Map<String, ContentClusterConfig> clusters = ContentClusterConfigs.from(model, deployedDir);
        verifyRankSetup(clusters);
        DocumentmanagerConfig documentTypes = model.getConfig(DocumentmanagerConfig.class, services.containerCluster());
        // streaming types' text fields are tokenized when indexed, as the search visitor tokenizes them (see StreamingTypes)
        IlscriptsConfig indexingScripts = StreamingTypes.of(model).tokenizing(model.getConfig(IlscriptsConfig.class, services.containerCluster() + INDEXING_PROCESSOR));

        // Vespa switches config generations in place; here the previous container stops (finishing
        // what it is serving) before the next starts, as they share ports.
        if (active != null) active.close();
        active = null;
        serving = null;
        if (hosts != null) hosts.write(List.copyOf(services.serviceHosts()), services.contentHosts());
        DocumentTypeManager types = new DocumentTypeManager(documentTypes);
        DocumentStore documents = store(documentTypes, types);
        // Writes the content clusters refuse while their disk is over its limit stop before the store, as in Vespa at the distributors
        FeedPipeline pipeline = new FeedPipeline(new FeedBlockingSink(new StoreSink(documents), FeedBlocks.of(model, data.store())), types, clusters);
        DocumentAccesses.install(pipeline);
        // The content nodes first, holding every document, so that the new container's dispatcher
        // finds them ready on its first ping. Indexing needs the container's linguistics: when the
        // package uses Vespa's default, it is made here from the model; else taken from the container.
        ContentServing content = new ContentServing(model, services, clusters);
        services.containers().forEach(cluster -> log.info("Session " + session + ": " + cluster.describe()));
        DocumentAccesses.installStreaming(content::nodesOf); // streaming queries come to the nodes as visits (see SearchVisitor)
        ContainerHosts containers = null;
        IndexFollower follower = null;
        PackageEmbedders packageEmbedders = null;
        try {
            // The flushed index state first; subscribing then indexes only what the state does not hold
            content.loadState(data.index(), IndexingIdentity.of(indexingScripts, deployedDir));
            Optional<Linguistics> linguistics = PackageLinguistics.of(model, services.containerCluster(), served);
            // Statements that embed need the package's embedders: made here when Vespa's own kinds, else the container's;
            // statements that generate need the container's field generators
            boolean embeds = IndexingScripts.usesEmbedders(indexingScripts);
            if (linguistics.isPresent() && embeds) {
                packageEmbedders = PackageEmbedders.of(model, services.containerCluster(), served).orElse(null);
                follower = packageEmbedders == null ? null : indexBeforeContainer(indexingScripts, types, linguistics.get(), packageEmbedders, content, data, documents);
                if (follower == null && packageEmbedders != null) { packageEmbedders.close(); packageEmbedders = null; }
            }
            else if (linguistics.isPresent()) {
                follower = new IndexFollower(new IndexingScripts(indexingScripts, types, linguistics.get()), content);
            }
            if (follower != null) {
                long indexingStart = System.nanoTime();
                documents.subscribe(follower);
                CachingEmbedder.storeIndexed();
                content.setReady();
                log.info("Content nodes hold the store's " + documents.documentCount() + " documents before the container started, after " +
                         (System.nanoTime() - indexingStart) / 1_000_000 + " ms");
            }
            starting = new Starting(model, content); // the nodes' metrics, from before the container answers
            containers = ContainerHosts.start(packagesOfClusters(services, served, session));
            ContainerHost container = containers.of(services.containerCluster());
            pipeline.route(new DocprocRoute(services.docprocChainsOfType().isEmpty() ? null : container.jdisc().documentProcessing(),
                                            services.docprocChainsOfType()));
            if (follower == null) {
                Map<String, Embedder> embedders = CachingEmbedder.wrap(container.embedders(), EMBEDDING_CACHE_SIZE, data.embeddings(), documents::documentCount);
                follower = new IndexFollower(new IndexingScripts(indexingScripts, types, linguistics.orElseGet(container::linguistics), embedders,
                                                                 container.fieldGenerators()), content);
                long indexingStart = System.nanoTime();
                documents.subscribe(follower);
                CachingEmbedder.storeIndexed();
                log.info("Indexed " + documents.documentCount() + " documents with the container's embedders " + embedders.keySet() +
                         " in " + (System.nanoTime() - indexingStart) / 1_000_000 + " ms");
            }
            content.startFlushing();
            if ( ! content.awaitReady(Duration.ofSeconds(30)))
                log.warning("The container has not reached every content node 30 s after start");
            active = new Generation(session, deployedDir, model, services, containers, content, documents, follower, packageEmbedders, built.log(),
                                    servedBuilt.actions().stream().map(Runtime::changeAction).toList());
            serving = active;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(documents, follower, containers, content, packageEmbedders);
            throw new IllegalStateException("Interrupted while activating session " + session, e);
        }
        catch (RuntimeException | LinkageError e) { // a LinkageError: a class a package's component needs is missing
            abandon(documents, follower, containers, content, packageEmbedders);
            throw e;
        }
        finally {
            starting = null; // served now, or abandoned
        }
        data.setActive(session);
        log.info("Session " + session + " active after " + (System.nanoTime() - start) / 1_000_000 + " ms, with " +
                 documents.documentCount() + " documents");
        return active;
    }

    /** Stops what a failed activation started. */
    private static void abandon(DocumentStore documents, IndexFollower follower, ContainerHosts container, ContentServing content,
                                PackageEmbedders embedders) {
        if (follower != null) documents.removeListener(follower);
        if (container != null) container.close();
        content.close();
        if (embedders != null) embedders.close();
    }

    /**
     * The package each container cluster starts from: the working copy itself when there is one cluster; else a copy
     * per cluster beside it (served/N-clusters/CLUSTER), with that cluster's container element only (see ServedPackage.forCluster).
     */
    private Map<String, Path> packagesOfClusters(PackageServices services, Path served, long session) {
        Map<String, Path> packages = new java.util.LinkedHashMap<>();
        if (services.containers().size() == 1) {
            packages.put(services.containers().get(0).id(), served);
            return packages;
        }
        for (PackageServices.ContainerSpec cluster : services.containers())
            packages.put(cluster.id(), ServedPackage.forCluster(served, served.resolveSibling(session + "-clusters") // the directory's name is the application's
                                                                  .resolve(cluster.id().replaceAll("[^a-zA-Z0-9_-]", "_")), cluster.id()));
        return packages;
    }

    /**
     * What indexes the content nodes with the package's own embedders, or null if the indexing
     * statements name an embedder those are not (one only the container makes).
     */
    private static IndexFollower indexBeforeContainer(IlscriptsConfig indexingScripts, DocumentTypeManager types, Linguistics linguistics,
                                                      PackageEmbedders embedders, ContentServing content, DataDirectory data,
                                                      DocumentStore documents) {
        try {
            var scripts = new IndexingScripts(indexingScripts, types, linguistics,
                                              CachingEmbedder.wrap(embedders.byId(), EMBEDDING_CACHE_SIZE, data.embeddings(), documents::documentCount));
            return new IndexFollower(scripts, content);
        }
        catch (IllegalArgumentException | IllegalStateException e) {
            log.info("Indexing waits for the container's embedders: " + e.getMessage());
            return null;
        }
    }

    /**
     * Checks what Vespa checks in C++ (vespa-verify-ranksetup) and its Java model cannot: that
     * every rank profile's features and functions resolve, types and ONNX shapes fit, and that
     * this engine supports them all.
     */
    private static void verifyRankSetup(Map<String, ContentClusterConfig> clusters) {
        List<String> errors = new ArrayList<>();
        clusters.values().forEach(cluster -> errors.addAll(RankSetupVerifier.verify(cluster)));
        if ( ! errors.isEmpty())
            throw new InvalidApplicationException("Rank setup verification failed:\n" + String.join("\n", errors));
    }

    /** The document store, opened again when the document types change. */
    private DocumentStore store(DocumentmanagerConfig documentTypes, DocumentTypeManager types) {
        if (store != null && documentTypes.equals(storeTypes)) return store;
        if (store != null) store.close();
        store = new DocumentStore(data.store(), types);
        storeTypes = documentTypes;
        return store;
    }

    private static Active toActive(Generation generation) {
        var services = generation.services();
        return new Active(generation.sessionId(),
                          services.containers().stream().map(cluster -> new Service(cluster.id(), "container", "localhost", cluster.port())).toList(),
                          log(generation), generation.actions());
    }

    /** What Vespa logged building the model, and, when the package has several container clusters, where each is served. */
    private static List<String> log(Generation generation) {
        var containers = generation.services().containers();
        if (containers.size() == 1) return generation.log();
        List<String> log = new ArrayList<>(generation.log());
        containers.forEach(cluster -> log.add("dwell: " + cluster.describe()));
        return log;
    }

    private static Deployments.ChangeAction changeAction(ConfigChangeAction action) {
        String documentType = action instanceof ConfigChangeReindexAction reindex ? reindex.getDocumentType()
                            : action instanceof ConfigChangeRefeedAction refeed ? refeed.getDocumentType() : null;
        String name = action instanceof ConfigChangeReindexAction reindex ? reindex.name()
                    : action instanceof ConfigChangeRefeedAction refeed ? refeed.name() : null;
        return new Deployments.ChangeAction(action.getType().name().toLowerCase(java.util.Locale.ROOT),
                                            action.clusterId() == null ? null : action.clusterId().value(), documentType, name, action.getMessage());
    }

    private static void deleteQuietly(Path dir) {
        try { PackageFiles.deleteRecursively(dir); }
        catch (IOException ignored) { }
    }

    @Override
    public synchronized void close() {
        if (active != null) active.close();
        active = null;
        serving = null;
        if (store != null) store.close();
        store = null;
    }

}
