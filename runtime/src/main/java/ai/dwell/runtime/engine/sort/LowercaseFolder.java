package ai.dwell.runtime.engine.sort;

import java.text.Normalizer;

/**
 * Lowercases and folds a string character by character for lowercase(x) sorting, as proton's LowercaseConverter
 * does with Fast_NormalizeWordFolder::lowercase_and_fold. ASCII is exact. Latin letters below U+0300 and in
 * Latin Extended Additional (U+1E00-U+1EFF) are lowercased and lose their diacritics, which is what proton's
 * folding tables do for them; other characters are lowercased by Java's Unicode tables, which may differ from
 * proton's for rare characters.
 */
final class LowercaseFolder {

    private LowercaseFolder() {}

    static String fold(String value) {
        if (isAsciiLower(value)) return value;
        StringBuilder result = new StringBuilder(value.length());
        value.codePoints().forEach(c -> result.appendCodePoint(fold(c)));
        return result.toString();
    }

    private static int fold(int c) {
        if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        int lower = Character.toLowerCase(c);
        if (c < 0x300 || (c >= 0x1E00 && c < 0x1F00)) {
            String decomposed = Normalizer.normalize(new String(Character.toChars(lower)), Normalizer.Form.NFD);
            return decomposed.codePointAt(0);
        }
        return lower;
    }

    private static boolean isAsciiLower(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x80 || (c >= 'A' && c <= 'Z')) return false;
        }
        return true;
    }

}
