package ai.dwell.runtime.engine.teaser;

import java.text.Normalizer;
import java.util.Locale;

/**
 * A query keyword juniper looks for in a field, and whether a word of the field could match it. For words
 * and keywords of ASCII letters and digits this is juniper's rule exactly (juniper/matchobject.cpp,
 * match_iterator::first): the word starts with the keyword, and is no longer than it unless the keyword is a
 * prefix term (prefix and substring items), or longer than stem_min_length (5) and then by at most
 * stem_max_extend (3) characters. Anything else (other characters, whose folding is vespalib's own,
 * wildcards) is answered "could match" more widely than juniper would, never less.
 */
record Keyword(String text, boolean prefix) {

    static final int STEM_MIN_LENGTH = 5;
    static final int STEM_MAX_EXTEND = 3;

    /** Whether juniper could match this keyword to the word (a plain token, or one term of an annotation). */
    boolean couldMatch(String word, boolean exactBounds) {
        String k = fold(text);
        String w = fold(word);
        if (k.isEmpty() || w.isEmpty()) return false;
        if (k.indexOf('*') >= 0 || k.indexOf('?') >= 0) return true; // wildcard terms: not modelled
        if ( ! ascii(k) || ! ascii(w)) return true; // a letter folded here as vespalib may not
        if ( ! exactBounds) return w.contains(k);
        if (w.length() < k.length()) return false;
        if ( ! prefix) {
            int extend = k.length() <= STEM_MIN_LENGTH ? 0 : STEM_MAX_EXTEND;
            if (w.length() > k.length() + extend) return false;
        }
        return w.startsWith(k);
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

}
