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
 * by the minilm embedder) with nearestNeighbor(embedding, q), rank profile similar. With article=&lt;id&gt;
 * it searches within that article only (the filter applies during the search: ArticleSearcher ANDs it).
 *
 * Options: similar.targetHits (default max(10, hits + offset)), similar.explore (hnsw.exploreAdditionalHits,
 * default 0), similar.approximate (default true).
 */
@Provides(SimilarCommentsSearcher.SIMILAR_COMMENTS)
@After(MinimalQueryInserter.EXTERNAL_YQL)
@Before(ArticleSearcher.ARTICLE_VIEW)
public class SimilarCommentsSearcher extends Searcher {

    public static final String SIMILAR_COMMENTS = "SimilarComments";
    public static final CompoundName SIMILAR = CompoundName.from("similar");
    public static final CompoundName SIMILAR_TEXT = CompoundName.from("similar.text");
    public static final CompoundName TARGET_HITS = CompoundName.from("similar.targetHits");
    public static final CompoundName EXPLORE = CompoundName.from("similar.explore");
    public static final CompoundName APPROXIMATE = CompoundName.from("similar.approximate");

    static final String FIELD = "embedding";
    static final String QUERY_TENSOR = "q";
    static final String PROFILE = "similar";
    static final String EMBEDDER = "minilm";
    static final String EMBEDDING_SUMMARY = "embedding";
    static final TensorType TYPE = TensorType.fromSpec("tensor<float>(x[384])");

    private final ComponentRegistry<Embedder> embedders;

    @Inject
    public SimilarCommentsSearcher(ComponentRegistry<Embedder> embedders) {
        this.embedders = embedders;
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
            Embedder embedder = embedders.getComponent(EMBEDDER);
            if (embedder == null) return new Result(query, ErrorMessage.createInternalServerError("No embedder '" + EMBEDDER + "'"));
            vector = embedder.embed(text, new Embedder.Context("query(" + QUERY_TENSOR + ")"), TYPE);
        }

        int targetHits = query.properties().getInteger(TARGET_HITS, Math.max(10, query.getHits() + query.getOffset()));
        NearestNeighborItem nearest = new NearestNeighborItem(FIELD, QUERY_TENSOR);
        nearest.setTargetNumHits(targetHits);
        nearest.setHnswExploreAdditionalHits(query.properties().getInteger(EXPLORE, 0));
        nearest.setAllowApproximate(query.properties().getBoolean(APPROXIMATE, true));
        Item similar = nearest;
        if (commentId != null) { // not the comment itself
            NotItem not = new NotItem();
            not.addPositiveItem(nearest);
            not.addNegativeItem(new WordItem(commentId, "comment_id", true));
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
        query.getRanking().getFeatures().put("query(" + QUERY_TENSOR + ")", vector);
        query.getModel().setRestrict(ArticleSearcher.SCHEMA);
        if ("default".equals(query.getRanking().getProfile())) query.getRanking().setProfile(PROFILE);
        query.trace("Similar comments to " + (commentId != null ? "comment '" + commentId + "'" : "the text") +
                    ": targetHits " + targetHits, 2);
        return execution.search(query);
    }

    /** The stored embedding of a comment, read through the backend (summary class embedding). */
    private static Optional<Tensor> embeddingOf(String commentId, Query original, Execution execution) {
        Query lookup = new Query();
        original.attachContext(lookup);
        lookup.getModel().getQueryTree().setRoot(new WordItem(commentId, "comment_id", true));
        lookup.getModel().setRestrict(ArticleSearcher.SCHEMA);
        lookup.setHits(1);
        lookup.getRanking().setProfile("unranked");
        lookup.getPresentation().setSummary(EMBEDDING_SUMMARY);
        Execution sub = new Execution(execution); // the rest of the chain, from here
        Result result = sub.search(lookup);
        sub.fill(result, EMBEDDING_SUMMARY);
        for (Hit hit : result.hits().asList())
            if (hit.getField(FIELD) instanceof Tensor tensor) return Optional.of(tensor);
        return Optional.empty();
    }

}
