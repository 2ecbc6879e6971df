package ai.dwell.searchers;

import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NullItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.query.QueryTree;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.searchchain.PhaseNames;
import com.yahoo.search.yql.MinimalQueryInserter;

/**
 * The article view: /search/?article=&lt;id&gt; returns the best comments of one article.
 *
 * It matches the article's comments (ANDed with any yql or query the request also has), and
 * picks rank profile neural and summary class short unless the request names others.
 */
@Provides(ArticleSearcher.ARTICLE_VIEW)
@After(MinimalQueryInserter.EXTERNAL_YQL)
@Before(PhaseNames.TRANSFORMED_QUERY)
public class ArticleSearcher extends Searcher {

    public static final String ARTICLE_VIEW = "ArticleView";
    public static final CompoundName ARTICLE = CompoundName.from("article");

    static final String SCHEMA = "comment";
    static final String ARTICLE_FIELD = "article_id";
    static final String DEFAULT_PROFILE = "neural";
    static final String DEFAULT_SUMMARY = "short";

    /** Returns whether this query is an article view. */
    public static boolean isArticleView(Query query) {
        return query.properties().getString(ARTICLE) != null;
    }

    @Override
    public Result search(Query query, Execution execution) {
        String article = query.properties().getString(ARTICLE);
        if (article == null) return execution.search(query);
        if (article.isBlank())
            return new Result(query, ErrorMessage.createBadRequest("Parameter 'article' must name an article"));

        QueryTree tree = query.getModel().getQueryTree();
        Item filter = new WordItem(article, ARTICLE_FIELD, true);
        Item root = tree.getRoot();
        if (root == null || root instanceof NullItem) {
            tree.setRoot(filter);
        }
        else {
            AndItem and = new AndItem();
            and.addItem(root);
            and.addItem(filter);
            tree.setRoot(and);
        }
        query.getModel().setRestrict(SCHEMA);
        if ("default".equals(query.getRanking().getProfile()))
            query.getRanking().setProfile(DEFAULT_PROFILE);
        if (query.getPresentation().getSummary() == null)
            query.getPresentation().setSummary(DEFAULT_SUMMARY);
        query.trace("Article view of '" + article + "': " + tree.getRoot() + ", rank profile " +
                    query.getRanking().getProfile(), 2);
        return execution.search(query);
    }

}
