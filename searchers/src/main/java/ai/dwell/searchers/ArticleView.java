package ai.dwell.searchers;

/**
 * An article view, as ArticleSearcher recognised it in a request: the searchers after it read it
 * from the query ({@link ChainProperties#articleView}) rather than parsing the request again.
 *
 * @param article the id of the article whose comments are shown
 */
public record ArticleView(String article) {

    public ArticleView {
        if (article == null || article.isBlank()) throw new IllegalArgumentException("An article view needs an article id");
    }

}
