package ai.dwell.searchers;

/**
 * The names of the phases dwell's searchers provide in a search chain, for their
 * {@code @Provides}, {@code @After} and {@code @Before} annotations. In chain order:
 * similar comments, article view, model weights, exploration, duplicate collapse, and the
 * article view cache, which comes last, next to the content cluster. A searcher orders itself by
 * these names, never by another searcher's class.
 */
public final class ChainPhases {

    /** SimilarCommentsSearcher: a similar or similar.text request became a nearestNeighbor query. */
    public static final String SIMILAR_COMMENTS = "SimilarComments";

    /** ArticleSearcher: an article=&lt;id&gt; request became an article view. */
    public static final String ARTICLE_VIEW = "ArticleView";

    /** RankingModelSearcher: the live network weights of the rank profile are in the query. */
    public static final String MODEL_WEIGHTS = "ModelWeights";

    /** ExplorationSearcher: the shown order of an article view is chosen and logged. */
    public static final String EXPLORATION = "Exploration";

    /** DuplicateCollapseSearcher: no two near-duplicates are shown. */
    public static final String DUPLICATE_COLLAPSE = "DuplicateCollapse";

    private ChainPhases() {}

}
