package ai.dwell.runtime.serve.feed;

import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the container's embedders as the runtime's indexing uses it: embeddings are deterministic,
 * so the last {@code capacity} texts are remembered (LRU). The runtime runs the indexing statements
 * again on every stored version of a document (a vote rewrites the whole comment) and on recovery,
 * where Vespa embeds a text once, when it is written; the cache keeps that cost where Vespa has it.
 * Query-time embedding (embed() in a query) goes to the container's embedder directly, uncached.
 */
public final class CachingEmbedder implements Embedder {

    private record Key(String text, String destination, TensorType type) {}

    private final Embedder embedder;
    private final Map<Key, Tensor> cache;

    public CachingEmbedder(Embedder embedder, int capacity) {
        this(embedder, new LinkedHashMap<>(1024, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<Key, Tensor> eldest) { return size() > capacity; }
        });
    }

    private CachingEmbedder(Embedder embedder, Map<Key, Tensor> cache) {
        this.embedder = embedder;
        this.cache = cache;
    }

    @Override
    public Tensor embed(String text, Context context, TensorType type) {
        Key key = new Key(text, context.getDestination(), type);
        synchronized (cache) {
            Tensor cached = cache.get(key);
            if (cached != null) return cached;
        }
        Tensor tensor = embedder.embed(text, context, type);
        synchronized (cache) {
            cache.put(key, tensor);
        }
        return tensor;
    }

    @Override
    public List<Integer> embed(String text, Context context) { return embedder.embed(text, context); }

    @Override
    public String decode(List<Integer> tokens, Context context) { return embedder.decode(tokens, context); }

    /** The caches of the last activation, by embedder id. */
    private static final Map<String, CachingEmbedder> previous = new LinkedHashMap<>();

    /**
     * Wraps each embedder. A redeploy keeps an embedder's cache when the new embedder embeds a text
     * of it exactly as cached (the same model), so indexing the store again for the new generation
     * does not embed every text again.
     */
    public static synchronized Map<String, Embedder> wrap(Map<String, Embedder> embedders, int capacity) {
        Map<String, Embedder> wrapped = new LinkedHashMap<>();
        Map<String, CachingEmbedder> next = new LinkedHashMap<>();
        embedders.forEach((id, embedder) -> {
            CachingEmbedder old = previous.get(id);
            CachingEmbedder caching = old != null && old.embedsAs(embedder) ? new CachingEmbedder(embedder, old.cache)
                                                                             : new CachingEmbedder(embedder, capacity);
            next.put(id, caching);
            wrapped.put(id, caching);
        });
        previous.clear();
        previous.putAll(next);
        return wrapped;
    }

    /** Whether this other embedder gives the cached embedding of one cached text. */
    private boolean embedsAs(Embedder other) {
        Map.Entry<Key, Tensor> sample;
        synchronized (cache) {
            if (cache.isEmpty()) return false;
            sample = cache.entrySet().iterator().next();
        }
        Key key = sample.getKey();
        try {
            return sample.getValue().equals(other.embed(key.text(), new Context(key.destination()), key.type()));
        }
        catch (RuntimeException e) {
            return false;
        }
    }

}
