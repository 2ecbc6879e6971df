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
        SnippetMatcher matcher = DynamicTeaser.matcher("f", tokenizer.codePoints(), tokenizer.tokens(), query, settings);
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

}
