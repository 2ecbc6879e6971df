package ai.dwell.runtime.engine.teaser;

import java.util.ArrayList;
import java.util.List;

/**
 * Juniper's tokenization of its input (vespalib's Fast_NormalizeWordFolder::UCS4Tokenize, which juniper's
 * JuniperTokenizer and its prefix fallback call): a word is a run of word characters; an interlinear annotation
 * (U+FFF9 text U+FFFA terms U+FFFB) is one token, from its anchor through its terminator, whatever its
 * characters. Word characters are known here up to U+00FF: ASCII letters and digits, and Latin-1's letters
 * (with ª, µ and º, without × and ÷), as vespalib's table has them. A character above U+00FF outside an
 * annotation makes a token's bounds unknown here: {@link Token#exact()} is false from there on.
 */
final class JuniperTokenizer {

    /** A token: its code point range in the input, and whether its bounds are juniper's for certain. */
    record Token(int start, int end, boolean exact) {}

    private final int[] codePoints;

    JuniperTokenizer(String input) {
        this.codePoints = input.codePoints().toArray();
    }

    int[] codePoints() { return codePoints; }

    /** The tokens, in order. */
    List<Token> tokens() {
        List<Token> tokens = new ArrayList<>();
        boolean exact = true;
        int i = 0;
        int n = codePoints.length;
        while (i < n) {
            // skip characters between words
            int prev = i;
            int c = 0;
            boolean found = false;
            while (i < n) {
                c = codePoints[i++];
                if (unknown(c)) exact = false;
                if (isWordCharOrAnnotation(c)) { found = true; break; }
                prev = i;
            }
            if ( ! found) break;
            int start = prev;
            if (c == JuniperInput.ANCHOR) {
                int last = c;
                while (i < n) { // the text, through the separator (or terminator)
                    int d = codePoints[i++];
                    if (d == JuniperInput.SEPARATOR || d == JuniperInput.TERMINATOR) { last = d; break; }
                }
                if (last == JuniperInput.SEPARATOR) {
                    while (i < n) { // the terms, through the terminator
                        if (codePoints[i++] == JuniperInput.TERMINATOR) break;
                    }
                }
            }
            else {
                while (i < n && isWordChar(codePoints[i])) i++;
                if (i < n && unknown(codePoints[i])) exact = false;
            }
            tokens.add(new Token(start, i, exact));
        }
        return tokens;
    }

    /** Whether this tokenizer does not know whether the character is a word character. */
    static boolean unknown(int c) {
        return c > 0xFF && c != JuniperInput.ANCHOR && c != JuniperInput.SEPARATOR && c != JuniperInput.TERMINATOR;
    }

    static boolean isWordCharOrAnnotation(int c) {
        return isWordChar(c) || c == JuniperInput.ANCHOR || c == JuniperInput.SEPARATOR || c == JuniperInput.TERMINATOR;
    }

    /** vespalib's word character table up to U+00FF; above, a guess (letters and digits), flagged by {@link #unknown}. */
    static boolean isWordChar(int c) {
        if (c < 128) return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
        if (c <= 0xFF) return c == 0xAA || c == 0xB5 || c == 0xBA || (c >= 0xC0 && c != 0xD7 && c != 0xF7);
        return Character.isLetterOrDigit(c);
    }

}
