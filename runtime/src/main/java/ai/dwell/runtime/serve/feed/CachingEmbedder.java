package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.feed.EmbeddingFile.Key;
import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * One of the container's embedders as the runtime's indexing uses it: embeddings are deterministic,
 * so the last {@code capacity} texts are remembered (LRU). The runtime runs the indexing statements
 * again on every stored version of a document (a vote rewrites the whole comment) and on start, where
 * Vespa embeds a text once, when it is written; the cache keeps that cost where Vespa has it.
 * With a directory, every text embedded is also kept in an {@link EmbeddingFile}, read back after the
 * runtime starts (when the cache first misses, so a start that indexes nothing reads nothing), so that indexing the stored documents again embeds only texts it has never seen:
 * the embeddings read are kept until the store is indexed ({@link #indexed}), then only the LRU.
 * Query-time embedding (embed() in a query) goes to the container's embedder directly, uncached.
 * The file is kept to at most twice what is worth keeping (the cache's capacity, or the number of stored documents
 * where that is larger) by compacting it, in the background, to that many distinct texts, the newest.
 */
public final class CachingEmbedder implements Embedder, AutoCloseable {

    private static final Logger log = Logger.getLogger(CachingEmbedder.class.getName());

    private final Embedder embedder;
    private final AtomicLong embedded = new AtomicLong(), readBack = new AtomicLong();
    private final Map<Key, Tensor> cache;
    private final KeptFile file; // null: not kept

    private CachingEmbedder(Embedder embedder, Map<Key, Tensor> cache, KeptFile file) {
        this.embedder = embedder;
        this.cache = cache;
        this.file = file;
    }

    /**
     * The embeddings file of a cache, opened (read) only when the cache first misses: a start whose content nodes
     * loaded their flushed index embeds nothing, and then need not read every embedding ever computed.
     */
    private static final class KeptFile {

        private final Path path;
        private final Embedder embedder;
        private final LongSupplier worthKeeping;
        private EmbeddingFile file;
        private volatile boolean open = false;
        private volatile Map<Key, Tensor> read = Map.of(); // what the file held when opened, until the store is indexed

        KeptFile(Path path, Embedder embedder, LongSupplier worthKeeping) {
            this.path = path;
            this.embedder = embedder;
            this.worthKeeping = worthKeeping;
        }

        private synchronized void open() {
            if (open) return;
            EmbeddingFile.Loaded loaded = EmbeddingFile.open(path, entry -> embeds(embedder, entry.getKey(), entry.getValue()));
            file = loaded.file();
            read = loaded.embeddings();
            open = true;
            boundSize();
        }

        /** Compacts the file once it holds more than twice what is worth keeping. */
        private void boundSize() {
            long keep = worthKeeping.getAsLong();
            if (file.records() > 2 * keep) file.compactInBackground(keep);
        }

        Tensor get(Key key) {
            if ( ! open) open();
            return read.get(key);
        }

        void append(Key key, Tensor tensor) {
            if ( ! open) open();
            file.append(key, tensor);
            boundSize();
        }

        boolean isOpen() { return open; }

        void forgetRead() { read = Map.of(); }

        synchronized void close() {
            if (file != null) file.close();
        }

    }

    /** A cache of the given capacity, kept in no file. */
    public CachingEmbedder(Embedder embedder, int capacity) {
        this(embedder, lru(capacity), null);
    }

    private static Map<Key, Tensor> lru(int capacity) {
        return new LinkedHashMap<>(1024, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<Key, Tensor> eldest) { return size() > capacity; }
        };
    }

    /** A cache of the given capacity, kept in the file (never compacted), whose embeddings are read if this embedder gives them too. */
    static CachingEmbedder kept(Embedder embedder, int capacity, Path file) {
        return kept(embedder, capacity, file, () -> Long.MAX_VALUE / 2);
    }

    /**
     * A cache of the given capacity, kept in the file, which is compacted once it holds more than twice the capacity
     * or twice the number of documents given, whichever is larger.
     */
    static CachingEmbedder kept(Embedder embedder, int capacity, Path file, LongSupplier documents) {
        return new CachingEmbedder(embedder, lru(capacity), new KeptFile(file, embedder, () -> Math.max(capacity, documents.getAsLong())));
    }

    @Override
    public Tensor embed(String text, Context context, TensorType type) {
        Key key = new Key(text, context.getDestination(), type);
        synchronized (cache) {
            Tensor cached = cache.get(key);
            if (cached != null) return cached;
        }
        Tensor tensor = file == null ? null : file.get(key);
        boolean computed = tensor == null;
        if (computed) tensor = embedder.embed(text, context, type);
        (computed ? embedded : readBack).incrementAndGet();
        synchronized (cache) {
            cache.put(key, tensor);
        }
        if (computed && file != null) file.append(key, tensor);
        return tensor;
    }

    @Override
    public List<Integer> embed(String text, Context context) { return embedder.embed(text, context); }

    @Override
    public String decode(List<Integer> tokens, Context context) { return embedder.decode(tokens, context); }

    /** The store is indexed: the embeddings read from the file are no longer needed (the LRU stays). */
    public void indexed() {
        if (file != null && file.isOpen())
            log.info(String.format("Indexed with %,d embeddings read back from %s and %,d texts embedded",
                                   readBack.getAndSet(0), file.path, embedded.getAndSet(0)));
        if (file != null) file.forgetRead();
    }

    @Override
    public void close() {
        if (file != null) file.close();
    }

    /** The caches of the last activation, by embedder id. */
    private static final Map<String, CachingEmbedder> previous = new LinkedHashMap<>();

    /**
     * Wraps each embedder. A redeploy keeps an embedder's cache (and file) when the new embedder embeds a text
     * of it exactly as cached (the same model), so indexing the store again for the new generation does not
     * embed every text again. Otherwise, with a directory, the embedder's cache is kept in
     * {@code directory/<embedder id>.embeddings}, bounded by the number of stored documents; without one, in memory only.
     */
    public static synchronized Map<String, Embedder> wrap(Map<String, Embedder> embedders, int capacity, Path directory,
                                                          LongSupplier storedDocuments) {
        Map<String, Embedder> wrapped = new LinkedHashMap<>();
        Map<String, CachingEmbedder> next = new LinkedHashMap<>();
        embedders.forEach((id, embedder) -> {
            CachingEmbedder old = previous.get(id);
            CachingEmbedder caching = old != null && old.embedsAs(embedder)
                                      ? new CachingEmbedder(embedder, old.cache, old.file)
                                      : directory == null ? new CachingEmbedder(embedder, capacity)
                                                          : kept(embedder, capacity, directory.resolve(id + ".embeddings"), storedDocuments);
            next.put(id, caching);
            wrapped.put(id, caching);
        });
        previous.values().stream().filter(old -> next.values().stream().noneMatch(kept -> kept.file == old.file)).forEach(CachingEmbedder::close);
        previous.clear();
        previous.putAll(next);
        return wrapped;
    }

    /** Tells the caching embedders of the last {@link #wrap} that the store is indexed. */
    public static synchronized void storeIndexed() {
        previous.values().forEach(CachingEmbedder::indexed);
    }

    /** Whether this other embedder gives the cached embedding of one cached text. */
    private boolean embedsAs(Embedder other) {
        Map.Entry<Key, Tensor> sample;
        synchronized (cache) {
            if (cache.isEmpty()) return false;
            sample = cache.entrySet().iterator().next();
        }
        return embeds(other, sample.getKey(), sample.getValue());
    }

    private static boolean embeds(Embedder embedder, Key key, Tensor embedding) {
        try {
            return embedding.equals(embedder.embed(key.text(), new Context(key.destination()), key.type()));
        }
        catch (RuntimeException e) {
            return false;
        }
    }

}
