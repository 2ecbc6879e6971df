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
        this.embedder = embedder;
        this.cache = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override protected boolean removeEldestEntry(Map.Entry<Key, Tensor> eldest) { return size() > capacity; }
        };
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

    /** Wraps each embedder. */
    public static Map<String, Embedder> wrap(Map<String, Embedder> embedders, int capacity) {
        Map<String, Embedder> wrapped = new LinkedHashMap<>();
        embedders.forEach((id, embedder) -> wrapped.put(id, new CachingEmbedder(embedder, capacity)));
        return wrapped;
    }

}
