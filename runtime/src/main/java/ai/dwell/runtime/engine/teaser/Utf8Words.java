package ai.dwell.runtime.engine.teaser;

/**
 * Juniper's moves to word boundaries in UTF-8 text (juniper/sumdesc.cpp, complete_word, and vespalib's
 * Fast_UnicodeUtil::UTF8move), over positions in a byte array from 0 to a length. Word characters are vespalib's up to
 * U+00FF (see {@link JuniperTokenizer#isWordChar}); an interlinear annotation, anchor to terminator, counts as a word.
 * Callers give text with no other characters above U+00FF.
 */
final class Utf8Words {

    private enum Test { WORD_OR_ANCHOR, WORD_OR_TERMINATOR, NON_WORD, ANCHOR, TERMINATOR }

    private Utf8Words() {}

    private static boolean startChar(int b) { return (b & 0x80) == 0 || (b & 0x40) != 0; }

    /** The code point at the position, -1 where no character starts there. */
    static int charAt(byte[] text, int p) {
        if (p < 0 || p >= text.length) return 0;
        int b = text[p] & 0xFF;
        if (b < 0x80) return b;
        int n = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : -1;
        if (n < 0 || p + n >= text.length) return -1;
        int c = b & (0x3F >> n);
        for (int i = 1; i <= n; i++) {
            int cb = text[p + i] & 0xFF;
            if ((cb & 0xC0) != 0x80) return -1;
            c = (c << 6) | (cb & 0x3F);
        }
        return c;
    }

    static boolean wordChar(byte[] text, int p) {
        int c = charAt(text, p);
        return c >= 0 && JuniperTokenizer.isWordChar(c) && ! JuniperTokenizer.unknown(c);
    }

    private static boolean is(byte[] text, int p, char c) { return charAt(text, p) == c; }

    private static boolean test(Test test, byte[] text, int p) {
        return switch (test) {
            case WORD_OR_ANCHOR -> wordChar(text, p) || is(text, p, JuniperInput.ANCHOR);
            case WORD_OR_TERMINATOR -> wordChar(text, p) || is(text, p, JuniperInput.TERMINATOR);
            case NON_WORD -> ! wordChar(text, p);
            case ANCHOR -> is(text, p, JuniperInput.ANCHOR);
            case TERMINATOR -> is(text, p, JuniperInput.TERMINATOR);
        };
    }

    /**
     * Moves pos[0] by offset characters within [0, length] (UTF8move): the bytes moved, or -1 (pos unchanged) where
     * it cannot; offset 0 moves back to the start of the current character.
     */
    static int move(byte[] text, int length, int[] pos, int offset) {
        int increment = offset > 0 ? 1 : -1;
        int p = pos[0];
        if (increment < 0) {
            if (p < 0) return -1;
            if (offset == 0) {
                if (p > length) return -1;
            }
            else if (p == 0) return -1;
            if (p == length) p += increment;
            else offset += increment;
        }
        else if (p >= length) return -1;
        else if (startChar(text[p])) offset += increment;
        for (; p >= 0 && p < length; p += increment) {
            if (startChar(text[p])) offset -= increment;
            if (offset == 0) break;
        }
        if (offset != 0) {
            offset -= increment;
            if (increment < 0) p -= increment;
        }
        if (offset != 0) return -1;
        int moved = Math.abs(p - pos[0]);
        pos[0] = p;
        return moved;
    }

    /**
     * complete_word: from a cut at the position, the bytes to move (backwards for increment -1, forwards for +1) to
     * take in the rest of the word cut there; negative where the cut is at white space, to leave it out instead.
     */
    static int completeWord(byte[] text, int length, int ptr, int increment) {
        int moved = 0;
        boolean whitespaceElim = false;
        int[] p = { ptr };
        int startOff = move(text, length, p, 0);
        Test test;
        if ( ! wordChar(text, p[0])) {
            if (increment > 0 && is(text, p[0], JuniperInput.ANCHOR)) test = Test.TERMINATOR;
            else if (increment < 0 && is(text, p[0], JuniperInput.TERMINATOR)) test = Test.ANCHOR;
            else {
                whitespaceElim = true;
                increment = -increment;
                test = increment > 0 ? Test.WORD_OR_ANCHOR : Test.WORD_OR_TERMINATOR;
            }
        }
        else if (increment > 0) {
            int[] pre = { p[0] };
            int curMove = move(text, length, pre, -1);
            if ( ! wordChar(text, pre[0]) && ! is(text, pre[0], JuniperInput.TERMINATOR)) {
                whitespaceElim = true;
                increment = -increment;
                test = increment > 0 ? Test.WORD_OR_ANCHOR : Test.WORD_OR_TERMINATOR;
                p[0] = pre[0];
                moved += curMove;
            }
            else {
                test = Test.NON_WORD;
            }
        }
        else {
            test = Test.NON_WORD;
        }
        for (;;) {
            int curMove = move(text, length, p, increment);
            if (p[0] >= length) break;
            if (curMove <= 0) break;
            if (test(test, text, p[0])) {
                if (test == Test.NON_WORD) {
                    if (is(text, p[0], JuniperInput.SEPARATOR)) {
                        test = increment > 0 ? Test.TERMINATOR : Test.ANCHOR;
                        moved += curMove;
                        continue;
                    }
                    else if (is(text, p[0], JuniperInput.TERMINATOR)) {
                        if (increment < 0) test = Test.ANCHOR;
                        moved += curMove;
                        continue;
                    }
                    else if (is(text, p[0], JuniperInput.ANCHOR)) {
                        if (increment > 0) test = Test.TERMINATOR;
                        moved += curMove;
                        continue;
                    }
                }
                else if (test == Test.ANCHOR || test == Test.TERMINATOR) {
                    test = Test.NON_WORD;
                    moved += curMove;
                    continue;
                }
                if (increment > 0) moved += curMove;
                break;
            }
            moved += curMove;
            if (moved >= SnippetSelection.MAX_SCAN_WORD && test != Test.ANCHOR && test != Test.TERMINATOR) break;
        }
        if (startOff != 0) moved += increment > 0 ? -startOff : startOff;
        return whitespaceElim ? -moved : moved;
    }

}
