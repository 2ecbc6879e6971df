package ai.dwell.searchers;

import com.yahoo.container.protect.Error;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.yql.MinimalQueryInserter;
import org.junit.jupiter.api.Test;

import java.util.List;

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
    }

    @Test
    void otherQueriesPassUntouched() {
        SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?query=hello");
        assertEquals("default", backend.lastQuery().getRanking().getProfile());
        assertNull(backend.lastQuery().getPresentation().getSummary());
    }

    @Test
    void anEmptyArticleIsABadRequest() {
        Result result = SearchChains.search(List.of(SearchChains.articleSearcher(), backend), "/search/?article=");
        assertEquals(Error.BAD_REQUEST.code, result.hits().getError().getCode());
    }

}
