package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.language.Language;
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
 * It matches the article's comments (ANDed with any yql or query the request also has), picks
 * the configured rank profile and summary class (neural and short) unless the request names
 * others, and marks the query as an article view ({@link ChainProperties#articleView}) for the
 * searchers after it. The schema and its article field come from {@link ArticleViewConfig}.
 */
@Provides(ChainPhases.ARTICLE_VIEW)
@After(MinimalQueryInserter.EXTERNAL_YQL)
@Before(PhaseNames.TRANSFORMED_QUERY)
public class ArticleSearcher extends Searcher {

    /** The request parameter naming the article. */
    public static final CompoundName ARTICLE = CompoundName.from("article");

    private final String schema;
    private final String articleField;
    private final String defaultProfile;
    private final String defaultSummary;

    @Inject
    public ArticleSearcher(ArticleViewConfig config) {
        this.schema = config.schema();
        this.articleField = config.articleField();
        this.defaultProfile = config.defaultProfile();
        this.defaultSummary = config.defaultSummary();
    }

    @Override
    public Result search(Query query, Execution execution) {
        String article = query.properties().getString(ARTICLE);
        if (article == null) return execution.search(query);
        if (article.isBlank())
            return new Result(query, ErrorMessage.createBadRequest("Parameter 'article' must name an article"));

        QueryTree tree = query.getModel().getQueryTree();
        Item filter = new WordItem(article, articleField, true);
        Item root = tree.getRoot();
        if (root == null || root instanceof NullItem) {
            tree.setRoot(filter);
            // no text to detect a language in (the article filter is an exact attribute term): skip detection
            if (query.getModel().getLanguage() == null) query.getModel().setLanguage(Language.ENGLISH);
        }
        else {
            AndItem and = new AndItem();
            and.addItem(root);
            and.addItem(filter);
            tree.setRoot(and);
        }
        query.getModel().setRestrict(schema);
        if ("default".equals(query.getRanking().getProfile()))
            query.getRanking().setProfile(defaultProfile);
        if (query.getPresentation().getSummary() == null)
            query.getPresentation().setSummary(defaultSummary);
        ChainProperties.setArticleView(query, new ArticleView(article));
        if (query.getTrace().isTraceable(2))
            query.trace("Article view of '" + article + "': " + tree.getRoot() + ", rank profile " +
                        query.getRanking().getProfile(), 2);
        return execution.search(query);
    }

}
