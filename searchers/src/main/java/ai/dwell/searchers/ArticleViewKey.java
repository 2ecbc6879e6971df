package ai.dwell.searchers;

import com.yahoo.search.Query;
import com.yahoo.search.query.Ranking;

import java.util.Set;

/**
 * What decides an article view's ranked window: the article, everything that ranks it (the whole {@link Ranking}:
 * rank profile, query inputs and rank properties, the live model's weights among them, sorting, match-phase and
 * rerank settings, freshness), the model version, the query tree and its restrictions, and the hits, offset and
 * summary asked for. Two views with equal keys get the same window from the content cluster, up to the clock.
 */
record ArticleViewKey(String article, Long modelVersion, String queryTree, Set<String> restrict, Set<String> sources,
                      Ranking ranking, int hits, int offset, String summary, Set<String> summaryFields) {

    static ArticleViewKey of(Query query, ArticleView view) {
        return new ArticleViewKey(view.article(), ChainProperties.modelVersion(query),
                                  query.getModel().getQueryTree().toString(),
                                  Set.copyOf(query.getModel().getRestrict()), Set.copyOf(query.getModel().getSources()),
                                  query.getRanking().clone(), query.getHits(), query.getOffset(),
                                  query.getPresentation().getSummary(), Set.copyOf(query.getPresentation().getSummaryFields()));
    }

}
