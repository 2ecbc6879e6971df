package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Juniper's snippet selection against the one snippet whose size juniper's own tests assert
 * (searchsummary/src/tests/juniper/auxTest.cpp, testJapanese, its sixth text: 103 bytes, 86 characters, with the
 * test's summary config) and against cases traced by hand through sumdesc.cpp.
 */
public class SnippetSelectionTest {

    /** auxTest.cpp's config: &lt;hit&gt; marks, "..." continuation, no separators, markup escaped, white space folded. */
    private static final SummaryFormat AUX_TEST = new SummaryFormat("<hit>", "</hit>", "...", "", true, false);

    /** testclient.rc: winsize 600, max_matches 3 (the matcher's), stemming 5 and 3. */
    private static final JuniperSettings TEST_CLIENT = new JuniperSettings(256, true, 5, 3, 128, 3, 128, 600, 10.0, 1000);

    private static JuniperQuery query(QueryItem item) { return JuniperQuery.of(item, index -> true); }

    private static QueryItem word(String word) { return new QueryItem.Term("f", word, QueryItem.TermType.WORD, 100, true); }

    private static SnippetSelection select(String input, JuniperQuery query, JuniperSettings settings, int length, int minLength, int maxMatches, int surround) {
        JuniperTokenizer tokenizer = new JuniperTokenizer(input);
        SnippetMatcher matcher = DynamicTeaser.matcher(tokenizer.codePoints(), tokenizer.tokens(), query, settings);
        return new SnippetSelection(matcher, input.getBytes(StandardCharsets.UTF_8).length, length, minLength, maxMatches, surround);
    }

    @Test
    void aHitBetweenLongRunsOfPunctuationHasContinuationMarksOnBothSides() { // auxTest.cpp, testJapanese, text 5
        String input = "-".repeat(117) + "this is a text that is long enough to generate a hit that does have dots on both sides " + ";".repeat(173) + " ";
        SnippetSelection selection = select(input, query(word("hit")), TEST_CLIENT, 256, 256, 4, 80);
        byte[] summary = selection.summary(input.getBytes(StandardCharsets.UTF_8), AUX_TEST);
        // By hand: one match at byte 166 (word 11); est. length 3 - (80 - 11) + 168 = 102 <= 256, so 80 bytes of context
        // each side: [86, 166) moved forward past the dashes to 117, [169, 249) moved back from the semicolons to 203.
        assertEquals("...this is a text that is long enough to generate a <hit>hit</hit> that does have dots on both sides...",
                     new String(summary, StandardCharsets.UTF_8));
        assertEquals(103, summary.length); // juniper's expectation
        assertEquals(86, selection.charSize()); // juniper's expectation
    }


    private static String proton(String input, JuniperQuery query) {
        SnippetSelection selection = select(input, query, JuniperSettings.DEFAULTS, 256, 128, 3, 128);
        return new String(selection.summary(input.getBytes(StandardCharsets.UTF_8), SummaryFormat.PROTON), StandardCharsets.UTF_8);
    }

    private static final String HI = "\u001F", DOTS = "\u001E";

    @Test
    void anOrCandidateWiderThanTheFallbackWindowIsDropped() { // Matcher.cpp, update_wrk_set; traced by hand
        // OR(foo, bar): foo's candidate takes bar 2204 bytes later, past winsize (200) x 10, and is deleted; bar's own
        // candidate is flushed at the end and is the only match. Its estimate (3 + 264 = 267) passes 256:
        // recompute_estimate gives 244 bytes before bar ([1960, 2204), at a word start); nothing after it.
        String input = "foo " + "x ".repeat(1100) + "bar";
        JuniperQuery query = query(new QueryItem.Or(java.util.List.of(word("foo"), word("bar"))));
        JuniperTokenizer tokenizer = new JuniperTokenizer(input);
        SnippetMatcher matcher = DynamicTeaser.matcher(tokenizer.codePoints(), tokenizer.tokens(), query, JuniperSettings.DEFAULTS);
        assertEquals(2, matcher.occurrences().size());
        assertEquals(1, matcher.matches().size());
        assertEquals(2204, matcher.matches().get(0).startPos);
        assertEquals(100, matcher.matches().get(0).weight);
        assertEquals(DOTS + "x ".repeat(122) + HI + "bar" + HI, proton(input, query));
    }

    @Test
    void anAnnotatedMatchAndLatin1TextAreCountedInBytes() { // sumdesc.cpp, complete_word, UTF8move; traced by hand
        // Juniper's input: the gap "a a ... " (300 bytes) and a unit separator, the annotation of Running (19 bytes, at
        // 301) and one, then " bé" x 50 (4 bytes each) and one: 522 bytes. Estimate 283 > 256: 118 bytes each side.
        // Before: [183, 301) starts at a space, moved on to the next word (184). After: [320, 438) ends at the "b" of a
        // word whose previous byte is a space, so the cut moves back to the end of "bé" (437), a two-byte character.
        String text = "a ".repeat(150) + "Running" + " bé".repeat(50);
        String input = JuniperInput.of(new Annotated(text).term(300, 7, "run").value());
        assertEquals(522, input.getBytes(StandardCharsets.UTF_8).length);
        assertEquals(DOTS + "a ".repeat(58) + HI + "\uFFF9Running\uFFFArun\uFFFB" + HI + " bé".repeat(29) + DOTS,
                     proton(input, query(word("run"))));
    }


    @Test
    void aWordMatchingTwoTermsCountsForBoth() { // Matcher.cpp, add_occurrence; sumdesc.cpp; traced by hand
        // foo at byte 300 (word 150) of 603. Alone, the match has one element: estimate 267 > 256, recompute_estimate
        // gives 126 bytes each side. With OR(foo, foo) the occurrence is given to both terms in turn, and completes
        // the candidate of the first with the second: two elements (weight 200), so 256 - 10 is shared by four
        // contexts: 61, recomputed to 63 + (256 - 3 - 132) / 2 = 123 bytes each side.
        String input = "x ".repeat(150) + "foo" + " y".repeat(150);
        assertEquals(DOTS + "x ".repeat(63) + HI + "foo" + HI + " y".repeat(63) + DOTS, proton(input, query(word("foo"))));
        JuniperQuery twice = query(new QueryItem.Or(java.util.List.of(word("foo"), word("foo"))));
        assertEquals(DOTS + "x ".repeat(61) + HI + "foo" + HI + " y".repeat(61) + DOTS, proton(input, twice));
    }

    @Test
    void termsAreTriedLongestFirstThenInQueryOrder() { // matchobject.h, the term table's chains
        JuniperQuery query = query(new QueryItem.Or(java.util.List.of(word("ab"), word("abcdef"), word("abc"), word("abd"))));
        assertEquals(java.util.List.of("abcdef", "abc", "abd", "ab"),
                     DynamicTeaser.termsInMatchOrder(query).stream().map(term -> term.keyword.text()).toList());
    }

}
