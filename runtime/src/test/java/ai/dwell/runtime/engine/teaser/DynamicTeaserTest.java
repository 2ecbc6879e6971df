package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.document.datatypes.StringFieldValue;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import ai.dwell.runtime.match.query.QueryItem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dynamic teasers against juniper's own expectations: searchsummary/src/tests/juniper/matchobjectTest.cpp
 * (testMatchAnnotated, testMatch), the documentation of juniperrc.def (stem_min_length, stem_max_extend,
 * prefix, length), with proton's markers (highlight U+001F, continuation U+001E) in place of the test's &lt;b&gt;.
 */
public class DynamicTeaserTest {

    private static final String HI = "\u001F", DOTS = "\u001E";

    private static String teaser(StringFieldValue value, Keyword... keywords) {
        return DynamicTeaser.of("f", value, new TeaserKeywords.FieldQuery(List.of(keywords), false, false), JuniperSettings.DEFAULTS);
    }

    private static Keyword word(String text) { return new Keyword(text, false); }

    @Test
    void annotatedMatchIsMarkedWhole() { // matchobjectTest.cpp, testMatchAnnotated: AND(big,buy)
        String text = "A big and ugly teaser about buying stuff";
        StringFieldValue value = new Annotated(text).term(text.indexOf("buying"), 6, "buy").value();
        assertEquals("A " + HI + "big" + HI + " and ugly teaser about " + HI + "\uFFF9buying\uFFFAbuy\uFFFB" + HI + " stuff",
                     teaser(value, word("big"), word("buy")));
    }

    @Test
    void keywordsLongerThanStemMinLengthMatchWordsUpToThreeLonger() { // juniperrc.def; testMatch: junipe and juniper match junipers
        assertEquals(HI + "junipers" + HI + " grow", teaser(new StringFieldValue("junipers grow"), word("junipe")));
        assertEquals(HI + "junipers" + HI + " grow", teaser(new StringFieldValue("junipers grow"), word("juniper")));
        assertEquals(HI + "keywordabc" + HI + " keywordabcd", teaser(new StringFieldValue("keywordabc keywordabcd"), word("keyword")));
        assertEquals("small " + HI + "smallest" + HI, teaser(new StringFieldValue("small smallest"), new Keyword("smalles", false)));
        assertEquals(HI + "small" + HI + " smaller", teaser(new StringFieldValue("small smaller"), word("small"))); // 5: exact only
        assertEquals(HI + "small" + HI + " " + HI + "smaller" + HI, teaser(new StringFieldValue("small smaller"), new Keyword("small", true))); // a prefix term
    }

    @Test
    void noMatchGivesThePrefixOfTheText() { // juniperrc.def: prefix true, the prefix when the query does not hit the field
        String text = "Ranking with XGBoost Models";
        StringFieldValue value = new Annotated(text).term(0, 7, "rank").term(8, 4).term(13, 7, "xgboost").term(21, 6, "model").value();
        String expected = "\uFFF9Ranking\uFFFArank\uFFFB with \uFFF9XGBoost\uFFFAxgboost\uFFFB \uFFF9Models\uFFFAmodel\uFFFB";
        assertEquals(expected, teaser(value, word("xgb")));
        assertEquals(expected, teaser(value));
    }

    @Test
    void aLongTextWithoutMatchIsCutAfterTheLastWordWithinTheLength() {
        String[] words = new String[60];
        Arrays.fill(words, "abcd");
        String text = String.join(" ", words); // 299 bytes: words of 4 bytes, each after the first with its space 5
        String[] kept = Arrays.copyOf(words, 51); // 4 + 50 * 5 = 254 bytes; a 52nd word would make 259 > 256
        assertEquals(String.join(" ", kept) + DOTS, teaser(new StringFieldValue(text), word("xyz")));
    }

    @Test
    void whiteSpaceIsKept() {
        assertEquals("a  b\tc\n d", teaser(new StringFieldValue("a  b\tc\n d")));
    }

    @Test
    void aMatchAtTheStartOfALongTextGetsTheContextAfterIt() { // sumdesc.cpp, traced by hand
        // 306 bytes >= 256 + 32: a snippet. One match at byte 0 (word 0): estimated 5 - 128 + 264 = 141 <= 256 bytes, so
        // surround_max (128) after it: [5, 133), completed to the end of the word cut at 133 ("wo|rd"), then the mark.
        String text = "match " + "word ".repeat(60);
        assertEquals(HI + "match" + HI + " " + "word ".repeat(25) + "word" + DOTS, teaser(new StringFieldValue(text), word("match")));
    }

    @Test
    void aMatchInTheMiddleGetsContextOnBothSides() { // sumdesc.cpp, traced by hand
        // "needle" at bytes 240 and 447 (words 40 and 81) of 694. Juniper's overlap test compares the first match's end
        // byte (246) with the second's word number (81), so the second is not chosen (nor marked: it is outside the
        // context). 128 bytes before: [112, 240), moved back to the start of the word at 112 ("alph|a" of word 18: 108);
        // after: [246, 374) moved on to the end of the word at 374 ("be|ta"): 376.
        String text = "alpha ".repeat(40) + "needle " + "beta ".repeat(40) + "needle " + "gamma ".repeat(40);
        assertEquals(DOTS + "alpha ".repeat(22) + HI + "needle" + HI + " " + "beta ".repeat(25) + "beta" + DOTS,
                     teaser(new StringFieldValue(text), word("needle")));
    }

    @Test
    void theBestMatchOfAnAndHasBothTerms() { // Matcher.cpp, mcand.cpp, sumdesc.cpp, traced by hand
        // AND(foo, bar): the candidate of both (weight 200) before the one of bar alone (100); its keywords at 200 and
        // 204: 128 bytes before foo ([72, 200), at a word start), the byte between, 128 after bar ([207, 335), which
        // ends at white space and so is moved back to the end of the last word, "y" at 334).
        String text = "x ".repeat(100) + "foo bar " + "y ".repeat(150);
        var and = new QueryItem.And(List.of(term("foo"), term("bar")));
        var query = new TeaserKeywords.FieldQuery(List.of(word("foo"), word("bar")), false, false, JuniperQuery.of(and, index -> true), 0);
        assertEquals(DOTS + "x ".repeat(64) + HI + "foo" + HI + " " + HI + "bar" + HI + " " + "y ".repeat(63) + "y" + DOTS,
                     DynamicTeaser.of("f", new StringFieldValue(text), query, JuniperSettings.DEFAULTS));
    }

    @Test
    void manyMatchesGiveSeveralSnippetsEachWordMarked() { // sumdesc.cpp, traced by hand; tests/apps/teasers' body
        // Sixty annotated words "abcd", each a match: juniper's input has a unit separator after each block, so word i
        // is at byte 7i of 418. Chosen (find_matches, with its byte-against-word overlap test): words 0, 4 and 32
        // (estimate 456 > 256); recompute_estimate gives 68 bytes per context (41 + 81 / 3). Descriptions: word 0,
        // [4, 28), word 4, [32, 100), [156, 224), word 32, [228, 296); then every other match inside them is marked, and
        // the two cut through a word (at 98 and 294) are taken whole, the second one's next context moved back to 154.
        String text = String.join(" ", java.util.Collections.nCopies(60, "abcd"));
        Annotated annotated = new Annotated(text);
        for (int i = 0; i < 60; i++) annotated.term(5 * i, 4);
        String marked = HI + "abcd" + HI;
        String expected = String.join(" ", java.util.Collections.nCopies(15, marked)) + DOTS +     // words 0 to 14
                          String.join(" ", java.util.Collections.nCopies(21, marked)) + DOTS;      // words 22 to 42
        assertEquals(expected, teaser(annotated.value(), word("abcd")));
    }

    @Test
    void highlightTermsAreAndedToTheQueryWithWeightZero() { // JuniperQueryAdapter, JuniperDFWTermVisitor; traced by hand
        // and(match:100, word:0) over "match word ... word" (307 bytes with its unit separator): the candidate of match
        // and the first word (weight 100) is best; the 60 of one word each (weight 0) are flushed at the end. Chosen, by
        // juniper's overlap test: words 0 (with match), 10 and 55; 4 elements, so recompute_estimate gives 77 bytes a
        // context. Descriptions [5, 6), [10, 51), [55, 132), [199, 276), [280, 307); every word within them is marked,
        // the one cut at 132 (word 25) taken whole, the context cut at 199 widened back to its word (38).
        String text = "match " + "word ".repeat(60);
        QueryItem match = term("match");
        var query = TeaserKeywords.of(match, Map.of("f", List.of("1", "word")), Set.of(), Set.of("f"));
        String marked = HI + "word" + HI;
        String expected = HI + "match" + HI + (" " + marked).repeat(26) + DOTS + marked + (" " + marked).repeat(21) + " ";
        assertEquals(expected, DynamicTeaser.of("f", new StringFieldValue(text), query, JuniperSettings.DEFAULTS));
    }

    @Test
    void aLongTextWithHighlightTermsOnTwoViewsOrCharactersBeyondLatin1IsRefused() {
        String text = "match " + "word ".repeat(60);
        var twoViews = TeaserKeywords.of(term("match"), Map.of("f", List.of("1", "a"), "g", List.of("1", "b")), Set.of(), Set.of("f", "g"));
        var e = assertThrows(UnsupportedFeatureException.class, () -> DynamicTeaser.of("f", new StringFieldValue(text), twoViews, JuniperSettings.DEFAULTS));
        assertTrue(e.getMessage().contains("Summary field 'f'") && e.getMessage().contains("highlight terms"), e.getMessage());
        assertThrows(UnsupportedFeatureException.class, () -> teaser(new StringFieldValue(text + "\u4e2d"), word("match")));
    }

    private static QueryItem term(String word) {
        return new QueryItem.Term("f", word, QueryItem.TermType.WORD, 100, true);
    }

    @Test
    void aPhraseThatMatchesIsRefused() {
        var query = new TeaserKeywords.FieldQuery(List.of(word("big"), word("buy")), true, false);
        assertThrows(UnsupportedFeatureException.class, () -> DynamicTeaser.of("f", new StringFieldValue("big buy"), query, JuniperSettings.DEFAULTS));
        assertEquals("nothing here", DynamicTeaser.of("f", new StringFieldValue("nothing here"), query, JuniperSettings.DEFAULTS)); // no match: the prefix
    }

    @Test
    void aBoldingFieldIsShownWholeWithItsMatchesMarked() { // the config model's override for bolding: on (Juniperrc.java): length 64 MiB
        var settings = JuniperSettings.of(new com.yahoo.vespa.config.search.summary.JuniperrcConfig.Builder()
                .override(new com.yahoo.vespa.config.search.summary.JuniperrcConfig.Override.Builder()
                                  .fieldname("f").length(64 * 1024 * 1024).max_matches(1).min_length(8192).surround_max(64 * 1024 * 1024))
                .build(), "f");
        String text = "match " + "word ".repeat(60);
        var query = new TeaserKeywords.FieldQuery(List.of(word("match")), false, false);
        assertEquals(HI + "match" + HI + " " + "word ".repeat(60), DynamicTeaser.of("f", new StringFieldValue(text), query, settings));
        assertEquals(text, DynamicTeaser.of("f", new StringFieldValue(text), new TeaserKeywords.FieldQuery(List.of(word("x")), false, false), settings));
    }

    @Test
    void withoutPrefixAFieldNotMatchedIsEmpty() { // juniperrc's prefix false: dynsum.fallback none
        var settings = new JuniperSettings(256, false, 5, 3, 128, 3, 128, 200, 10.0, 1000);
        assertEquals("", DynamicTeaser.of("f", new StringFieldValue("text"), new TeaserKeywords.FieldQuery(List.of(word("x")), false, false), settings));
    }

    @Test
    void specialTokensAndUnhighlightedTermsAreRefusedWhereTheTextHasThem() { // juniper tokenizes special tokens by its registry
        var flagged = new TeaserKeywords.FieldQuery(List.of(word("c++")), false, true);
        assertThrows(UnsupportedFeatureException.class, () -> DynamicTeaser.of("f", new StringFieldValue("I like C++ a lot"), flagged, JuniperSettings.DEFAULTS));
        assertEquals("I like Java", DynamicTeaser.of("f", new StringFieldValue("I like Java"), flagged, JuniperSettings.DEFAULTS));
    }

    @Test
    void wordsBeyondAsciiThatCouldMatchAreRefused() {
        assertThrows(UnsupportedFeatureException.class, () -> teaser(new StringFieldValue("Søkemotor"), word("sok")));
        assertThrows(UnsupportedFeatureException.class, () -> teaser(new StringFieldValue("straße"), word("strasse")));
        assertEquals("Søkemotor x", teaser(new StringFieldValue("Søkemotor x"), word("abc"))); // cannot match: the prefix
    }

}
