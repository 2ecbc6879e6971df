package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.document.datatypes.StringFieldValue;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The dynamic summary (summary: dynamic) of a string field, as proton's DynamicTeaserDFW has juniper write it, in the
 * case this engine makes exactly: no keyword of the query for the field matches a word of it. Juniper then
 * writes its prefix fallback (juniper/result.cpp, Result::GetTeaser, dynsum.fallback "prefix", which proton sets):
 * its whole input when that is at most dynsum.length (256) bytes, else its words up to the last one that keeps the
 * text within the length, then the continuation mark U+001E; the input's unit and group separators (U+001F, U+001D)
 * are left out, white space kept (proton's juniper properties). The interlinear annotations stay in, for the
 * container, which shows the annotated text. Where a keyword may match, juniper selects snippets and marks the
 * matches, which is not ported: that is refused, with an error naming the field.
 */
public final class DynamicTeaser {

    /** juniperrc's length: the summary's length in bytes. */
    static final int LENGTH = 256;
    static final char CONTINUATION = '\u001E';

    private DynamicTeaser() {}

    /** The teaser of the field's value for the keywords the query has for this field. */
    public static String of(String fieldName, StringFieldValue value, List<Keyword> keywords) {
        String input = JuniperInput.of(value);
        JuniperTokenizer tokenizer = new JuniperTokenizer(input);
        List<JuniperTokenizer.Token> tokens = tokenizer.tokens();
        if ( ! keywords.isEmpty() && anyMatch(tokenizer.codePoints(), tokens, keywords))
            throw new UnsupportedFeatureException("Summary field '" + fieldName + "' (summary: dynamic): the query has terms that match " +
                                                  "the field, and juniper's snippets with the matches marked are not supported by this content engine");
        return prefixFallback(fieldName, input, tokenizer.codePoints(), tokens);
    }

    /** The teaser of a field with no keyword of the query: juniper's prefix fallback. */
    public static String of(String fieldName, StringFieldValue value) { return of(fieldName, value, List.of()); }

    private static boolean anyMatch(int[] codePoints, List<JuniperTokenizer.Token> tokens, List<Keyword> keywords) {
        for (JuniperTokenizer.Token token : tokens)
            for (String word : words(codePoints, token))
                for (Keyword keyword : keywords)
                    if (keyword.couldMatch(word, token.exact())) return true;
        return false;
    }

    /**
     * The words juniper matches keywords against in a token (matchobject.cpp, match_iterator::first_match): an
     * annotation's terms (split at spaces), else the token itself.
     */
    static List<String> words(int[] codePoints, JuniperTokenizer.Token token) {
        String text = new String(codePoints, token.start(), token.end() - token.start());
        if (text.charAt(0) != JuniperInput.ANCHOR) return List.of(text);
        int separator = text.indexOf(JuniperInput.SEPARATOR);
        if (separator < 0) return List.of(text.substring(1));
        int terminator = text.indexOf(JuniperInput.TERMINATOR, separator);
        String terms = text.substring(separator + 1, terminator < 0 ? text.length() : terminator);
        if (terms.isEmpty()) return List.of(text.substring(1, separator)); // a broken annotation: its text
        return List.of(terms.split("[ \uFFFA]", -1));
    }

    /** Juniper's prefix fallback of its input. */
    static String prefixFallback(String fieldName, String input, int[] codePoints, List<JuniperTokenizer.Token> tokens) {
        StringBuilder text = new StringBuilder();
        if (input.getBytes(StandardCharsets.UTF_8).length <= LENGTH) {
            append(text, codePoints, 0, codePoints.length);
            return text.toString();
        }
        int bytes = 0;
        int src = 0;
        for (int t = 0; src < codePoints.length; t++) {
            int end = t < tokens.size() ? tokens.get(t).end() : codePoints.length;
            if (t < tokens.size() ? ! tokens.get(t).exact() : unknownIn(codePoints, src, end))
                throw new UnsupportedFeatureException("Summary field '" + fieldName + "' (summary: dynamic): the text is longer than " + LENGTH +
                                                      " bytes and has characters this content engine cannot split into words as juniper does");
            int oldLength = text.length();
            int added = append(text, codePoints, src, end);
            src = end;
            if (bytes + added > LENGTH) {
                text.setLength(oldLength);
                text.append(CONTINUATION);
                break;
            }
            bytes += added;
        }
        return text.toString();
    }

    private static boolean unknownIn(int[] codePoints, int from, int to) {
        for (int i = from; i < to; i++) if (JuniperTokenizer.unknown(codePoints[i])) return true;
        return false;
    }

    /** Appends the code points, without unit and group separators, as juniper's Appender; returns the UTF-8 bytes appended. */
    private static int append(StringBuilder text, int[] codePoints, int from, int to) {
        int bytes = 0;
        for (int i = from; i < to; i++) {
            int c = codePoints[i];
            if (c == JuniperInput.UNIT_SEPARATOR || c == JuniperInput.GROUP_SEPARATOR) continue;
            text.appendCodePoint(c);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        }
        return bytes;
    }

}
