package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.component.provider.ComponentRegistry;
import com.yahoo.language.process.Embedder;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.NullItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.yql.MinimalQueryInserter;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Optional;

/**
 * Similar comments: /search/?similar=&lt;comment id&gt; or /search/?similar.text=&lt;text&gt; finds the
 * comments closest to that comment (by its stored embedding, itself excluded) or to the text (embedded
 * by the configured embedder, minilm) with nearestNeighbor(embedding, q), rank profile similar. With
 * article=&lt;id&gt; it searches within that article only (the filter applies during the search: the
 * article view, later in the chain, ANDs it). The field, embedder, query tensor and profile come from
 * {@link SimilarCommentsConfig}.
 *
 * Options: similar.targetHits (default max(10, hits + offset)), similar.explore (hnsw.exploreAdditionalHits,
 * default 0), similar.approximate (default true).
 */
@Provides(ChainPhases.SIMILAR_COMMENTS)
@After(MinimalQueryInserter.EXTERNAL_YQL)
@Before(ChainPhases.ARTICLE_VIEW)
public class SimilarCommentsSearcher extends Searcher {

    public static final CompoundName SIMILAR = CompoundName.from("similar");
    public static final CompoundName SIMILAR_TEXT = CompoundName.from("similar.text");
    public static final CompoundName TARGET_HITS = CompoundName.from("similar.targetHits");
    public static final CompoundName EXPLORE = CompoundName.from("similar.explore");
    public static final CompoundName APPROXIMATE = CompoundName.from("similar.approximate");

    /** Vespa's built-in rank profile that ranks nothing: the lookup of one comment needs no ranking. */
    private static final String UNRANKED = "unranked";

    private final ComponentRegistry<Embedder> embedders;
    private final String schema;
    private final String idField;
    private final String embeddingField;
    private final String embeddingSummary;
    private final String embedderId;
    private final String queryTensor;
    private final TensorType queryTensorType;
    private final String profile;

    @Inject
    public SimilarCommentsSearcher(ComponentRegistry<Embedder> embedders, SimilarCommentsConfig config) {
        this.embedders = embedders;
        this.schema = config.schema();
        this.idField = config.idField();
        this.embeddingField = config.embeddingField();
        this.embeddingSummary = config.embeddingSummary();
        this.embedderId = config.embedder();
        this.queryTensor = config.queryTensor();
        this.queryTensorType = TensorType.fromSpec(config.queryTensorType());
        this.profile = config.profile();
    }

    @Override
    public Result search(Query query, Execution execution) {
        String commentId = query.properties().getString(SIMILAR);
        String text = query.properties().getString(SIMILAR_TEXT);
        if (commentId == null && text == null) return execution.search(query);
        if ((commentId != null && commentId.isBlank()) || (text != null && text.isBlank()))
            return new Result(query, ErrorMessage.createBadRequest("Parameters 'similar' and 'similar.text' must not be empty"));

        Tensor vector;
        if (commentId != null) {
            Optional<Tensor> stored = embeddingOf(commentId, query, execution);
            if (stored.isEmpty())
                return new Result(query, ErrorMessage.createBadRequest("No comment '" + commentId + "' with an embedding"));
            vector = stored.get();
        }
        else {
            Embedder embedder = embedders.getComponent(embedderId);
            if (embedder == null) return new Result(query, ErrorMessage.createInternalServerError("No embedder '" + embedderId + "'"));
            vector = embedder.embed(text, new Embedder.Context("query(" + queryTensor + ")"), queryTensorType);
        }

        int targetHits = query.properties().getInteger(TARGET_HITS, Math.max(10, query.getHits() + query.getOffset()));
        NearestNeighborItem nearest = new NearestNeighborItem(embeddingField, queryTensor);
        nearest.setTargetNumHits(targetHits);
        nearest.setHnswExploreAdditionalHits(query.properties().getInteger(EXPLORE, 0));
        nearest.setAllowApproximate(query.properties().getBoolean(APPROXIMATE, true));
        Item similar = nearest;
        if (commentId != null) { // not the comment itself
            NotItem not = new NotItem();
            not.addPositiveItem(nearest);
            not.addNegativeItem(new WordItem(commentId, idField, true));
            similar = not;
        }
        Item root = query.getModel().getQueryTree().getRoot();
        if (root == null || root instanceof NullItem) {
            query.getModel().getQueryTree().setRoot(similar);
        }
        else {
            AndItem and = new AndItem();
            and.addItem(root);
            and.addItem(similar);
            query.getModel().getQueryTree().setRoot(and);
        }
        query.getRanking().getFeatures().put("query(" + queryTensor + ")", vector);
        query.getModel().setRestrict(schema);
        if ("default".equals(query.getRanking().getProfile())) query.getRanking().setProfile(profile);
        if (query.getTrace().isTraceable(2))
            query.trace("Similar comments to " + (commentId != null ? "comment '" + commentId + "'" : "the text") +
                        ": targetHits " + targetHits, 2);
        return execution.search(query);
    }

    /** The stored embedding of a comment, read through the backend (summary class embedding). */
    private Optional<Tensor> embeddingOf(String commentId, Query original, Execution execution) {
        Query lookup = new Query();
        original.attachContext(lookup);
        lookup.getModel().getQueryTree().setRoot(new WordItem(commentId, idField, true));
        lookup.getModel().setRestrict(schema);
        lookup.setHits(1);
        lookup.getRanking().setProfile(UNRANKED);
        lookup.getPresentation().setSummary(embeddingSummary);
        Execution sub = new Execution(execution); // the rest of the chain, from here
        Result result = sub.search(lookup);
        sub.fill(result, embeddingSummary);
        for (Hit hit : result.hits().asList())
            if (hit.getField(embeddingField) instanceof Tensor tensor) return Optional.of(tensor);
        return Optional.empty();
    }

}
