package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.document.datatypes.StringFieldValue;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The dynamic summary (summary: dynamic) of a string field, as proton's DynamicTeaserDFW has juniper write it:
 * <ul>
 * <li>No keyword of the query for the field matches a word of it. Juniper then writes its prefix fallback
 * (juniper/result.cpp, Result::GetTeaser, dynsum.fallback "prefix", juniperrc's prefix): its whole input when that
 * is at most dynsum.length (juniperrc's length, 256 unless a bolding field's override) bytes, else its words up to the
 * last one that keeps the text within the length, then the continuation mark U+001E; without prefix, nothing.</li>
 * <li>Some keyword matches, and the input is shorter than the length plus 32 bytes (juniper/sumdesc.cpp: the
 * SummaryDesc of the complete document, build_fulldoc_desc): the whole input, each token that matches a keyword
 * between two highlight marks (U+001F, proton's highlight_on and highlight_off), an annotated word as a whole.</li>
 * <li>Some keyword matches a longer input: juniper's snippets ({@link SnippetMatcher}, {@link SnippetSelection}) of
 * the tokens matching the terms of juniper's query tree ({@link JuniperQuery}).</li>
 * </ul>
 * In all, the input's unit and group separators (U+001F, U+001D) are left out and white space is kept (proton's
 * juniper properties); the interlinear annotations stay in, for the container, which shows the annotated text and
 * turns the marks into &lt;hi&gt;, &lt;/hi&gt; and &lt;sep /&gt;. Refused, with an error naming the field: a query
 * with a phrase on the field (juniper then marks only complete matches), terms flagged not to be highlighted or as
 * special tokens, words or keywords this engine cannot match as juniper does (see {@link Keyword}), and for snippets
 * characters above U+00FF (whose word classes are vespalib's) and highlight terms on several views of the field.
 */
public final class DynamicTeaser {

    /** juniper's MIN_CONTINUATION (sumdesc.h): an input shorter than the length + 4 times this is shown whole. */
    static final int MIN_CONTINUATION = 8;
    static final char CONTINUATION = '\u001E';
    static final char HIGHLIGHT = '\u001F';

    private DynamicTeaser() {}

    /** The teaser of the field's value for the query the field has. */
    static String of(String fieldName, StringFieldValue value, TeaserKeywords.FieldQuery query, JuniperSettings settings) {
        String input = JuniperInput.of(value);
        JuniperTokenizer tokenizer = new JuniperTokenizer(input);
        List<JuniperTokenizer.Token> tokens = tokenizer.tokens();
        boolean[] matched = new boolean[tokens.size()];
        boolean anyMatch = false;
        for (int t = 0; t < tokens.size(); t++) {
            Keyword.Match match = match(tokenizer.codePoints(), tokens.get(t), query.keywords(), settings);
            if (match == Keyword.Match.UNKNOWN)
                throw refused(fieldName, "the query has terms this content engine cannot match to the field's words as juniper does");
            matched[t] = match == Keyword.Match.YES;
            anyMatch |= matched[t];
        }
        if (query.flagged() && (anyMatch || mentionsAKeyword(input, query.keywords()))) // a special token is a token of juniper's own
            throw refused(fieldName, "terms flagged not to be highlighted, or special tokens, are not supported");
        if ( ! anyMatch) return settings.prefix() ? prefixFallback(fieldName, input, tokenizer.codePoints(), tokens, settings.length()) : "";
        if (query.phrase()) throw refused(fieldName, "a phrase on the field (juniper marks its complete matches only) is not supported");
        byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= (long) settings.length() + 4 * MIN_CONTINUATION)
            return snippets(fieldName, bytes, tokenizer.codePoints(), tokens, query, settings);
        return highlighted(tokenizer.codePoints(), tokens, matched);
    }

    /**
     * Juniper's snippets of a longer input: its matcher fed each token that matches a term of the query (by byte
     * position and word number), then its selection ({@link SnippetSelection}); where that gives nothing, the prefix.
     */
    private static String snippets(String fieldName, byte[] bytes, int[] codePoints, List<JuniperTokenizer.Token> tokens,
                                   TeaserKeywords.FieldQuery query, JuniperSettings settings) {
        if (query.highlightViews() > 1) // juniper visits them in the order of a hash map of the request's properties
            throw refused(fieldName, "highlight terms on several of the field's indexes and fieldsets, in a text longer than juniper shows whole, are not supported");
        JuniperQuery tree = query.tree();
        if (tree == null || tree.root().phrase())
            throw refused(fieldName, "this query's snippet selection in a text longer than juniper shows whole is not supported");
        for (int c : codePoints)
            if (JuniperTokenizer.unknown(c))
                throw refused(fieldName, "snippets of a text longer than juniper shows whole with characters beyond U+00FF are not supported");
        SnippetMatcher matcher = matcher(codePoints, tokens, tree, settings);
        SnippetSelection selection = new SnippetSelection(matcher, bytes.length, settings.length(), settings.minLength(),
                                                          settings.maxMatches(), settings.surroundMax());
        byte[] summary = selection.summary(bytes, SummaryFormat.PROTON);
        if (summary.length == 0)
            return settings.prefix() ? prefixFallback(fieldName, new String(bytes, StandardCharsets.UTF_8), codePoints, tokens, settings.length()) : "";
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(summary)).toString();
        }
        catch (java.nio.charset.CharacterCodingException e) {
            throw refused(fieldName, "juniper's snippets of this text cut a character");
        }
    }

    /** Juniper's matcher after the input's tokens, by byte position and word number. */
    static SnippetMatcher matcher(int[] codePoints, List<JuniperTokenizer.Token> tokens, JuniperQuery tree, JuniperSettings settings) {
        int[] bytePos = new int[codePoints.length + 1];
        for (int i = 0; i < codePoints.length; i++) {
            int c = codePoints[i];
            bytePos[i + 1] = bytePos[i] + (c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
        }
        SnippetMatcher matcher = new SnippetMatcher(tree, settings);
        List<JuniperQuery.Term> byLength = termsInMatchOrder(tree);
        List<JuniperQuery.Term> matched = new java.util.ArrayList<>();
        for (int t = 0; t < tokens.size(); t++) {
            JuniperTokenizer.Token token = tokens.get(t);
            matched.clear();
            for (String word : words(codePoints, token)) { // the first word of an annotation that any term matches
                for (JuniperQuery.Term term : byLength)
                    if (term.keyword.match(word, token.exact(), settings.stemMinLength(), settings.stemMaxExtend()) == Keyword.Match.YES)
                        matched.add(term);
                if ( ! matched.isEmpty()) break;
            }
            if ( ! matched.isEmpty())
                matcher.occurrence(bytePos[token.start()], t, bytePos[token.end()] - bytePos[token.start()], matched);
        }
        matcher.end();
        return matcher;
    }

    /**
     * The terms in the order juniper's match iterator tries them (matchobject.h: a hash table of 32 buckets by the
     * term's first character, each chain ordered by the term's length in bytes, longest first, then by query order):
     * all terms that can match a word have the word's first character, so are in one chain.
     */
    static List<JuniperQuery.Term> termsInMatchOrder(JuniperQuery tree) {
        List<JuniperQuery.Term> terms = new java.util.ArrayList<>(tree.terms());
        terms.sort(java.util.Comparator.comparingInt((JuniperQuery.Term term) -> term.keyword.text().getBytes(StandardCharsets.UTF_8).length).reversed());
        return terms;
    }

    private static boolean mentionsAKeyword(String input, List<Keyword> keywords) {
        String text = input.toLowerCase(java.util.Locale.ROOT);
        return keywords.stream().anyMatch(keyword -> text.contains(keyword.text().toLowerCase(java.util.Locale.ROOT)));
    }

    private static UnsupportedFeatureException refused(String fieldName, String why) {
        return new UnsupportedFeatureException("Summary field '" + fieldName + "' (summary: dynamic): " + why + " by this content engine");
    }

    /** YES if a keyword matches a word of the token, else UNKNOWN if one may, else NO. */
    private static Keyword.Match match(int[] codePoints, JuniperTokenizer.Token token, List<Keyword> keywords, JuniperSettings settings) {
        Keyword.Match result = Keyword.Match.NO;
        for (String word : words(codePoints, token)) {
            for (Keyword keyword : keywords) {
                Keyword.Match match = keyword.match(word, token.exact(), settings.stemMinLength(), settings.stemMaxExtend());
                if (match == Keyword.Match.YES) return match;
                if (match == Keyword.Match.UNKNOWN) result = match;
            }
        }
        return result;
    }

    /** The whole input with the matched tokens between highlight marks (sumdesc.cpp, get_summary of the full document). */
    private static String highlighted(int[] codePoints, List<JuniperTokenizer.Token> tokens, boolean[] matched) {
        StringBuilder text = new StringBuilder();
        int pos = 0;
        for (int t = 0; t < tokens.size(); t++) {
            if ( ! matched[t]) continue;
            JuniperTokenizer.Token token = tokens.get(t);
            append(text, codePoints, pos, token.start());
            text.append(HIGHLIGHT);
            append(text, codePoints, token.start(), token.end());
            text.append(HIGHLIGHT);
            pos = token.end();
        }
        append(text, codePoints, pos, codePoints.length);
        return text.toString();
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
    static String prefixFallback(String fieldName, String input, int[] codePoints, List<JuniperTokenizer.Token> tokens, int length) {
        StringBuilder text = new StringBuilder();
        if (input.getBytes(StandardCharsets.UTF_8).length <= length) {
            append(text, codePoints, 0, codePoints.length);
            return text.toString();
        }
        int bytes = 0;
        int src = 0;
        for (int t = 0; src < codePoints.length; t++) {
            int end = t < tokens.size() ? tokens.get(t).end() : codePoints.length;
            if (t < tokens.size() ? ! tokens.get(t).exact() : unknownIn(codePoints, src, end))
                throw new UnsupportedFeatureException("Summary field '" + fieldName + "' (summary: dynamic): the text is longer than " + length +
                                                      " bytes and has characters this content engine cannot split into words as juniper does");
            int oldLength = text.length();
            int added = append(text, codePoints, src, end);
            src = end;
            if (bytes + added > length) {
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
