package ai.dwell.searchers;

import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;

import java.util.Optional;

/**
 * The query properties through which dwell's searchers tell the searchers after them in the chain
 * what they did. Each property has one writer; the others only read it, so no searcher depends on
 * another searcher's code.
 */
public final class ChainProperties {

    /** Written by ArticleSearcher: the {@link ArticleView} of an article view, absent otherwise. */
    public static final CompoundName ARTICLE_VIEW = CompoundName.from("dwell.articleView");

    /**
     * Written by RankingModelSearcher: the version of the model that ranks this query, 0 for the
     * constants in the package. A long.
     */
    public static final CompoundName MODEL_VERSION = CompoundName.from("dwell.model.version");

    private ChainProperties() {}

    public static void setArticleView(Query query, ArticleView view) {
        query.properties().set(ARTICLE_VIEW, view);
    }

    /**
     * Returns the article view of this query, or empty if it is not one. Only an {@link ArticleView}
     * object counts: a request parameter of the same name is a string, so a request cannot pose as one.
     */
    public static Optional<ArticleView> articleView(Query query) {
        return query.properties().get(ARTICLE_VIEW) instanceof ArticleView view ? Optional.of(view) : Optional.empty();
    }

    public static void setModelVersion(Query query, long version) {
        query.properties().set(MODEL_VERSION, version);
    }

    /** Returns the version of the model that ranks this query, or null if none was recorded. */
    public static Long modelVersion(Query query) {
        return query.properties().getLong(MODEL_VERSION);
    }

}
