package ai.dwell.runtime.engine.teaser;

import java.text.Normalizer;
import java.util.Locale;

/**
 * A query keyword juniper looks for in a field, and whether it matches a word of the field. For a keyword of
 * lowercase ASCII letters and digits and a word of ASCII this is juniper's rule exactly (juniper/matchobject.cpp,
 * match_iterator::first; the keyword is compared as given, the word as folded, which for ASCII is lowercased): the
 * word starts with the keyword, and is no longer than it unless the keyword is a prefix term (prefix and
 * substring items), or longer than stem_min_length (juniperrc; 5) and then by at most stem_max_extend (3) characters. Anything
 * else (other characters, whose folding is vespalib's own; wildcards) is {@link Match#UNKNOWN} where it could match.
 */
record Keyword(String text, boolean prefix) {

    enum Match { YES, NO, UNKNOWN }

    /** Whether juniper matches this keyword to the word (a plain token, or one term of an annotation). */
    Match match(String word, boolean exactBounds, int stemMinLength, int stemMaxExtend) {
        if (text.isEmpty() || word.isEmpty()) return Match.NO;
        if (text.indexOf('*') >= 0 || text.indexOf('?') >= 0) return Match.UNKNOWN; // wildcard terms: not modelled
        if ( ! lowercaseAscii(text) || ! ascii(word) || ! exactBounds)
            return couldMatch(fold(text), fold(word), exactBounds) ? Match.UNKNOWN : Match.NO;
        String w = word.toLowerCase(Locale.ROOT);
        if (w.length() < text.length()) return Match.NO;
        if ( ! prefix) {
            int extend = text.length() <= stemMinLength ? 0 : stemMaxExtend;
            if (w.length() > text.length() + extend) return Match.NO;
        }
        return w.startsWith(text) ? Match.YES : Match.NO;
    }

    /** A superset of juniper's matches where this cannot decide exactly. */
    private static boolean couldMatch(String k, String w, boolean exactBounds) {
        if ( ! ascii(k) || ! ascii(w)) return true; // a letter folded here as vespalib may not
        return exactBounds ? w.startsWith(k) : w.contains(k);
    }

    /**
     * Lowercased, and beyond ASCII also decomposed without diacritics and with the common multi-letter foldings
     * (vespalib's word folder removes accents and expands ß, æ, œ); what is still not ASCII then is not compared.
     */
    static String fold(String s) {
        String lower = s.toLowerCase(Locale.ROOT);
        if (ascii(lower)) return lower;
        String decomposed = Normalizer.normalize(lower, Normalizer.Form.NFKD).replaceAll("\\p{M}", "");
        return decomposed.replace("ß", "ss").replace("æ", "ae").replace("œ", "oe").replace("ø", "o").replace("đ", "d")
                         .replace("ł", "l").replace("þ", "th").replace("ð", "d").replace("ı", "i");
    }

    static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) >= 128) return false;
        return true;
    }

    private static boolean lowercaseAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 128 || (c >= 'A' && c <= 'Z')) return false;
        }
        return true;
    }

}
