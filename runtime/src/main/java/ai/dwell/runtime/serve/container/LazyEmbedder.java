package ai.dwell.runtime.serve.container;

import com.yahoo.component.AbstractComponent;
import com.yahoo.language.process.Embedder;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.List;
import java.util.function.Supplier;

/**
 * An embedder made when it is first used. The content nodes' indexing needs the package's embedders only for a
 * document it indexes: a start whose nodes load their flushed index and take no write embeds nothing, and should not
 * pay for loading the model (~1-2 s for MiniLM, once per start). The container makes its own instance of each
 * embedder as it starts, so a model that cannot be loaded still fails the deploy.
 */
final class LazyEmbedder implements Embedder {

    private final Supplier<Embedder> maker;
    private volatile Embedder made;

    LazyEmbedder(Supplier<Embedder> maker) { this.maker = maker; }

    private Embedder embedder() {
        Embedder embedder = made;
        if (embedder != null) return embedder;
        synchronized (this) {
            if (made == null) made = maker.get();
            return made;
        }
    }

    /** Whether the embedder was made (used at least once). */
    boolean isMade() { return made != null; }

    @Override
    public List<Integer> embed(String text, Context context) { return embedder().embed(text, context); }

    @Override
    public Tensor embed(String text, Context context, TensorType type) { return embedder().embed(text, context, type); }

    @Override
    public List<Tensor> embed(List<String> texts, Context context, TensorType type) { return embedder().embed(texts, context, type); }

    @Override
    public String decode(List<Integer> tokens, Context context) { return embedder().decode(tokens, context); }

    @Override
    public Batching batchingConfig() { return embedder().batchingConfig(); }

    /** Deconstructs the embedder if it was made. */
    void close() {
        if (made instanceof AbstractComponent component) component.deconstruct();
    }

}
