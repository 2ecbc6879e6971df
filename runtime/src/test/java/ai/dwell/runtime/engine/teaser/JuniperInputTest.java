package ai.dwell.runtime.engine.teaser;

import com.yahoo.document.datatypes.StringFieldValue;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The juniper input of annotated strings, against the expectations of Vespa's
 * searchsummary/src/tests/docsummary/annotation_converter/annotation_converter_test.cpp, and of gram fields against
 * the form container-search's NGramSearcher recombines ("blulue rededs" for "blue reds" at gram size 3).
 */
public class JuniperInputTest {

    private static final String US = "\u001F", ANCHOR = "\uFFF9", SEP = "\uFFFA", TERM = "\uFFFB";

    @Test
    void plainString() {
        assertEquals("Foo Bar Baz" + US, JuniperInput.of(new StringFieldValue("Foo Bar Baz")));
    }

    @Test
    void annotatedString() {
        StringFieldValue value = new Annotated("foo bar").term(0, 3).term(4, 3, "baz").value();
        assertEquals("foo" + US + " " + US + ANCHOR + "bar" + SEP + "baz" + TERM + US, JuniperInput.of(value));
    }

    @Test
    void annotatedChineseString() {
        StringFieldValue value = new Annotated("我就是那个大灰狼").term(0, 5).term(5, 3).value();
        assertEquals("我就是那个" + US + "大灰狼" + US, JuniperInput.of(value));
    }

    @Test
    void overlappingAnnotations() {
        StringFieldValue value = new Annotated("foo abcdefghi").term(4, 2).term(4, 5).term(5, 3).term(7, 2).term(9, 2).value();
        assertEquals("foo " + US + ANCHOR + "abcde" + SEP + "ab abcde bcd de" + TERM + US + "fg" + US + "hi" + US, JuniperInput.of(value));
    }

    @Test
    void gramsRepeatTheTextTheyOverlap() {
        StringFieldValue grams = new Annotated("blue reds").term(0, 3).term(1, 3).term(5, 3).term(6, 3).value();
        assertEquals("blulue rededs", JuniperInput.of(grams).replace(US, ""));
    }

}
