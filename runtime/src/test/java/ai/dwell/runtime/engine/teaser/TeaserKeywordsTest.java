package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keywords of a field's juniper query: the views of searchsummary's QueryTermFilter (the field and its
 * fieldsets, "" where default is one; query_term_filter_factory_test.cpp), and juniper's handling of rank and
 * and-not (only the first child; queryvisitor.cpp, querynode.cpp SimplifyStack).
 */
public class TeaserKeywordsTest {

    private static QueryItem.Term term(String index, String word) {
        return new QueryItem.Term(index, word, QueryItem.TermType.WORD, 100, true);
    }

    private static List<Keyword> keywords(QueryItem root, Set<String> views) {
        return TeaserKeywords.of(root, Map.of(), Set.of(), views).keywords();
    }

    @Test
    void termsOfTheFieldAndItsFieldsets() {
        QueryItem root = new QueryItem.Or(List.of(term("default", "xgb"), term("grams", "xgb"), term("title", "models"),
                                                  term("", "plain"), term("content", "other")));
        assertEquals(List.of(new Keyword("xgb", false), new Keyword("models", false), new Keyword("plain", false)),
                     keywords(root, Set.of("title", "default")));
        assertEquals(List.of(new Keyword("xgb", false)), keywords(root, Set.of("gram_title", "grams")));
    }

    @Test
    void rankAndAndNotKeepTheirFirstChild() {
        QueryItem root = new QueryItem.Rank(List.of(term("title", "a"), new QueryItem.AndNot(List.of(term("title", "b"), term("title", "c")))));
        assertEquals(List.of(new Keyword("a", false)), keywords(root, Set.of("title")));
        QueryItem andNot = new QueryItem.AndNot(List.of(new QueryItem.Or(List.of(term("title", "b"), term("other", "d"))), term("title", "c")));
        assertEquals(List.of(new Keyword("b", false)), keywords(andNot, Set.of("title")));
    }

    @Test
    void integersGiveTheirDigitsAndFloatsAreRefused() { // searchlib's SplitFloat: runs of ASCII letters and digits
        QueryItem negative = new QueryItem.Term("title", "-42", QueryItem.TermType.INTEGER, 100, true);
        var query = TeaserKeywords.of(negative, Map.of(), Set.of(), Set.of("title"));
        assertEquals(List.of(new Keyword("42", false)), query.keywords());
        assertFalse(query.phrase());
        QueryItem real = new QueryItem.Term("title", "1.5", QueryItem.TermType.FLOATING_POINT, 100, true);
        org.junit.jupiter.api.Assertions.assertThrows(ai.dwell.runtime.rank.UnsupportedFeatureException.class,
                                                      () -> TeaserKeywords.of(real, Map.of(), Set.of(), Set.of("title")));
        assertEquals(List.of(), keywords(real, Set.of("other")));
    }

    @Test
    void prefixesPhrasesHighlightTermsAndFlags() {
        QueryItem root = new QueryItem.And(List.of(new QueryItem.Prefix("title", "xg", 100, true),
                                                   new QueryItem.Phrase("title", List.of("big", "buy"), 100, true, 0, true)));
        // highlight terms as the container's Highlight.prepare writes them: the count of blocks, then words and quoted phrases
        var query = TeaserKeywords.of(root, Map.of("title", List.of("2", "extra", "\"", "2", "hi", "there", "\""), "other", List.of("1", "no")),
                                      Set.of("other"), Set.of("title"));
        assertEquals(List.of(new Keyword("xg", true), new Keyword("big", false), new Keyword("buy", false), new Keyword("extra", false),
                             new Keyword("hi", false), new Keyword("there", false)),
                     query.keywords());
        assertEquals(1, query.highlightViews());
        assertEquals(List.of(List.of("extra"), List.of("hi", "there")), TeaserKeywords.blocks("title", List.of("2", "extra", "\"", "2", "hi", "there", "\"")));
        assertThrows(UnsupportedFeatureException.class, () -> TeaserKeywords.blocks("title", List.of("extra")));
        assertTrue(query.phrase());
        assertFalse(query.flagged());
        assertTrue(TeaserKeywords.of(root, Map.of(), Set.of("title"), Set.of("title")).flagged());
    }

}
