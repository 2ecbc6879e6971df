package ai.dwell.searchers;

import com.yahoo.container.protect.Error;
import com.yahoo.language.Language;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.yql.MinimalQueryInserter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

public class ArticleSearcherTest {

    private final CommentsBackend backend = new CommentsBackend(List.of(2.0, 1.0));

    @Test
    void anArticleViewMatchesTheArticlesCommentsWithSaneDefaults() {
        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?article=politics-2026-11-20");
        Query sent = backend.lastQuery();
        assertEquals("article_id:politics-2026-11-20", sent.getModel().getQueryTree().getRoot().toString());
        assertEquals("[comment]", sent.getModel().getRestrict().toString());
        assertEquals("neural", sent.getRanking().getProfile());
        assertEquals("short", sent.getPresentation().getSummary());
        assertEquals(Language.ENGLISH, sent.getModel().getLanguage(), "no text in the query: no language to detect");
    }

    @Test
    void theRequestsOwnChoicesAreKept() {
        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?article=a1&ranking=freshness&presentation.summary=default");
        assertEquals("freshness", backend.lastQuery().getRanking().getProfile());
        assertEquals("default", backend.lastQuery().getPresentation().getSummary());
    }

    @Test
    void aQueryInTheRequestIsRestrictedToTheArticle() {
        SearchChains.search(List.of(new MinimalQueryInserter(), SearchChains.articleSearcher(), backend),
                            "/search/?article=a1&yql=select%20*%20from%20comment%20where%20text%20contains%20%22climate%22");
        assertEquals("AND text:climate article_id:a1", backend.lastQuery().getModel().getQueryTree().getRoot().toString());
        assertNull(backend.lastQuery().getModel().getLanguage(), "the text's language is detected as usual");
    }

    @Test
    void otherQueriesPassUntouched() {
        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?query=hello");
        assertEquals("default", backend.lastQuery().getRanking().getProfile());
        assertNull(backend.lastQuery().getPresentation().getSummary());
    }

    @Test
    void theSchemaFactsComeFromConfig() {
        ArticleSearcher configured = new ArticleSearcher(new ArticleViewConfig.Builder().schema("post").articleField("story_id")
                                                                 .defaultProfile("freshness").defaultSummary("full").build());
        SearchChains.search(List.of(configured, backend), "/search/?article=s7");
        Query sent = backend.lastQuery();
        assertEquals("story_id:s7", sent.getModel().getQueryTree().getRoot().toString());
        assertEquals("[post]", sent.getModel().getRestrict().toString());
        assertEquals("freshness", sent.getRanking().getProfile());
        assertEquals("full", sent.getPresentation().getSummary());
    }

    @Test
    void anArticleViewIsMarkedOnTheQueryForTheSearchersAfter() {
        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?article=a1");
        assertEquals(Optional.of(new ArticleView("a1")), ChainProperties.articleView(backend.lastQuery()));

        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?query=hello&dwell.articleView=a1");
        assertEquals(Optional.empty(), ChainProperties.articleView(backend.lastQuery()), "a request cannot pose as an article view");
    }

    @Test
    void anEmptyArticleIsABadRequest() {
        Result result = SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?article=");
        assertEquals(Error.BAD_REQUEST.code, result.hits().getError().getCode());
    }

}
