package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.searchchain.PhaseNames;
import com.yahoo.tensor.Tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * Collapses near-duplicate comments: with collapse.threshold=&lt;cosine similarity&gt; (e.g. 0.9, or the
 * query profile "deduplicated"), no two hits shown have embeddings more similar than the threshold.
 * It asks the backend for collapse.window times the hits wanted (default 3), reads the candidates'
 * embeddings (summary class embedding), and keeps each hit, best first, unless it is too similar to
 * one already kept; that one's field duplicates counts what it absorbed. Under the exploration
 * searcher, so exploration samples among distinct comments. The embedding field and its summary
 * class come from {@link DuplicateCollapseConfig}.
 */
@Provides(ChainPhases.DUPLICATE_COLLAPSE)
@After(ChainPhases.EXPLORATION)
@Before(PhaseNames.BLENDED_RESULT)
public class DuplicateCollapseSearcher extends Searcher {

    public static final CompoundName THRESHOLD = CompoundName.from("collapse.threshold");
    public static final CompoundName WINDOW = CompoundName.from("collapse.window");
    static final String DUPLICATES = "duplicates";

    private final String embeddingField;
    private final String embeddingSummary;

    @Inject
    public DuplicateCollapseSearcher(DuplicateCollapseConfig config) {
        this.embeddingField = config.embeddingField();
        this.embeddingSummary = config.embeddingSummary();
    }

    @Override
    public Result search(Query query, Execution execution) {
        Double threshold = query.properties().getDouble(THRESHOLD);
        if (threshold == null) return execution.search(query);
        int window = query.properties().getInteger(WINDOW, 3);
        if (threshold <= -1 || threshold > 1 || window < 1 || window > 20)
            return new Result(query, ErrorMessage.createBadRequest("collapse.threshold must be in (-1, 1] and collapse.window in [1, 20]"));

        int hits = query.getHits(), offset = query.getOffset();
        int wanted = hits + offset;
        query.setHits(wanted * window);
        query.setOffset(0);
        Result result = execution.search(query);
        query.setHits(hits);
        query.setOffset(offset);
        if (result.hits().getError() != null) return result;
        execution.fill(result, embeddingSummary);

        List<Hit> kept = new ArrayList<>();
        List<float[]> keptVectors = new ArrayList<>();
        int[] absorbed = new int[wanted];
        int collapsed = 0;
        result.hits().sort();
        for (Hit hit : new ArrayList<>(result.hits().asList())) {
            if (hit.isAuxiliary()) continue;
            float[] vector = vector(hit.getField(embeddingField));
            hit.removeField(embeddingField);
            int duplicateOf = vector == null ? -1 : mostSimilar(vector, keptVectors, threshold);
            if (duplicateOf >= 0) {
                absorbed[duplicateOf]++;
                collapsed++;
                result.hits().remove(hit.getId());
                continue;
            }
            if (kept.size() == wanted) {
                result.hits().remove(hit.getId());
                continue;
            }
            kept.add(hit);
            keptVectors.add(vector);
        }
        for (int i = 0; i < kept.size(); i++) kept.get(i).setField(DUPLICATES, absorbed[i]);
        result.hits().trim(offset, hits);
        if (query.getTrace().isTraceable(2))
            query.trace("Collapsed " + collapsed + " near-duplicates at cosine similarity " + threshold, 2);
        return result;
    }

    /** The index of the kept vector whose cosine similarity with this one is at least the threshold, or -1. */
    private static int mostSimilar(float[] vector, List<float[]> kept, double threshold) {
        for (int i = 0; i < kept.size(); i++) {
            float[] other = kept.get(i);
            if (other != null && cosine(vector, other) >= threshold) return i;
        }
        return -1;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    private static float[] vector(Object field) {
        if ( ! (field instanceof Tensor tensor) || tensor.type().rank() != 1) return null;
        float[] vector = new float[(int) tensor.size()];
        var cells = tensor.valueIterator();
        for (int i = 0; i < vector.length && cells.hasNext(); i++) vector[i] = cells.next().floatValue();
        return vector;
    }

}
