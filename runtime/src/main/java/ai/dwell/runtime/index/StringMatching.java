package ai.dwell.runtime.index;

import java.util.BitSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Prefix, regexp and fuzzy matching on the string values of an attribute: a single-value string attribute, or the
 * elements of an array or weighted set of strings (a document matches when one of its values does). Each is a test of
 * a value as the attribute's match mode folds it (uncased: lowercased), as proton's string search contexts compare.
 */
public interface StringMatching {

    /** Whether the attribute's match mode is cased (else values compare lowercased). */
    boolean isCased();

    /** The value as this attribute's match mode compares it. */
    default String fold(String value) { return isCased() ? value : value.toLowerCase(java.util.Locale.ROOT); }

    /** Adds to result the candidates (all when null) holding a (folded) value the test accepts; each distinct value is tested once. */
    void matchValues(Predicate<String> accepts, BitSet candidates, BitSet result);

    /** Values that begin with the prefix. */
    default Predicate<String> prefix(String prefix) {
        String folded = fold(prefix);
        return value -> value.startsWith(folded);
    }

    /**
     * Values the regular expression matches somewhere (a partial match, as proton's), ignoring case when this attribute
     * is uncased. A pattern that does not compile matches nothing, as in proton (java.util.regex reads the RE2 syntax
     * proton takes, and more).
     */
    default Predicate<String> regexp(String pattern) {
        Pattern regexp;
        try {
            regexp = Pattern.compile(pattern, isCased() ? 0 : Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
        } catch (PatternSyntaxException e) {
            return value -> false;
        }
        return value -> regexp.matcher(value).find();
    }

    /**
     * Values within maxEdits (Levenshtein over code points) of the word that begin with its first prefixLock
     * characters; with prefixMatch, those with a prefix that is.
     */
    default Predicate<String> fuzzy(String word, int maxEdits, int prefixLock, boolean prefixMatch) {
        int[] target = fold(word).codePoints().toArray();
        int lock = Math.min(Math.max(0, prefixLock), target.length);
        return value -> withinEdits(target, lock, value.codePoints().toArray(), maxEdits, prefixMatch);
    }

    /** Adds to result the candidates (all when null) in the posting lists of the (folded) values the test accepts. */
    static void orPostings(java.util.Map<String, PostingList> postings, Predicate<String> accepts, BitSet candidates, BitSet result) {
        for (java.util.Map.Entry<String, PostingList> entry : postings.entrySet()) {
            if ( ! accepts.test(entry.getKey())) continue;
            if (candidates == null) entry.getValue().orInto(result);
            else entry.getValue().orInto(result, candidates);
        }
    }

    static boolean withinEdits(int[] target, int lock, int[] value, int maxEdits, boolean prefixMatch) {
        if (value.length < lock) return false;
        for (int i = 0; i < lock; i++) if (value[i] != target[i]) return false;
        int n = target.length - lock, m = value.length - lock;
        if ( ! prefixMatch && Math.abs(n - m) > maxEdits) return false;
        int[] previous = new int[m + 1], current = new int[m + 1];
        for (int j = 0; j <= m; j++) previous[j] = j;
        for (int i = 1; i <= n; i++) {
            current[0] = i;
            int best = current[0];
            for (int j = 1; j <= m; j++) {
                int substitution = previous[j - 1] + (target[lock + i - 1] == value[lock + j - 1] ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
                best = Math.min(best, current[j]);
            }
            if (best > maxEdits) return false; // every alignment is already too far
            int[] swap = previous; previous = current; current = swap;
        }
        if ( ! prefixMatch) return previous[m] <= maxEdits;
        for (int j = 0; j <= m; j++) if (previous[j] <= maxEdits) return true; // the word against some prefix of the value
        return false;
    }

}
