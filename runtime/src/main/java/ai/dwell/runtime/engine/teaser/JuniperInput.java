package ai.dwell.runtime.engine.teaser;

import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.SpanNode;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.StringFieldValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The text proton gives juniper for a string field: the field's text with its linguistics TERM annotations
 * interleaved, as searchsummary's AnnotationConverter writes it from the terms searchlib's TokenExtractor
 * finds. Each block of text (a term's span, or a gap no term covers) is followed by the unit separator
 * (U+001F); a block with more than one term, or with one term whose annotation has a value (a stem, a
 * lowercased form), is written as interlinear annotation: U+FFF9, the text, U+FFFA, the terms joined by
 * spaces, U+FFFB. A string without a linguistics span tree is one plain block.
 */
public final class JuniperInput {

    static final char UNIT_SEPARATOR = '\u001F';
    static final char GROUP_SEPARATOR = '\u001D';
    static final char ANCHOR = '\uFFF9';
    static final char SEPARATOR = '\uFFFA';
    static final char TERMINATOR = '\uFFFB';

    /** searchlib's FieldInverter::max_word_len: longer words are dropped by the token extractor. */
    private static final int MAX_WORD_BYTES = 1024 * 1024;

    private JuniperInput() {}

    /** A term of the span tree: its span in the text (UTF-16 offsets), its word, and whether the annotation had a value. */
    record SpanTerm(int from, int length, String word, boolean altered) implements Comparable<SpanTerm> {
        int to() { return from + length; }
        @Override public int compareTo(SpanTerm other) {
            if (from != other.from) return Integer.compare(from, other.from);
            if (length != other.length) return Integer.compare(length, other.length);
            return Arrays.compareUnsigned(word.getBytes(StandardCharsets.UTF_8), other.word.getBytes(StandardCharsets.UTF_8));
        }
    }

    public static String of(StringFieldValue value) {
        String text = value.getString();
        List<SpanTerm> terms = terms(value, text);
        StringBuilder out = new StringBuilder(text.length() * 2);
        int endPos = 0;
        int i = 0;
        while (i < terms.size()) {
            int curStart = terms.get(i).from();
            if (curStart > endPos) { // text not indexed
                block(out, text, endPos, curStart, List.of());
                endPos = curStart;
            }
            int curEnd = terms.get(i).to();
            int begin = i++;
            for (; i < terms.size() && terms.get(i).from() == curStart; i++) curEnd = Math.max(curEnd, terms.get(i).to()); // the longest span starting here
            for (; i < terms.size() && terms.get(i).to() <= curEnd; i++) { } // the spans within it
            block(out, text, curStart, curEnd, terms.subList(begin, i));
            endPos = curEnd;
        }
        if (endPos < text.length()) block(out, text, endPos, text.length(), List.of());
        return out.toString();
    }

    private static void block(StringBuilder out, String text, int from, int to, List<SpanTerm> terms) {
        if (terms.size() > 1 || (terms.size() == 1 && terms.get(0).altered())) {
            out.append(ANCHOR).append(text, from, to).append(SEPARATOR);
            for (int i = 0; i < terms.size(); i++) {
                if (i > 0) out.append(' ');
                out.append(terms.get(i).word());
            }
            out.append(TERMINATOR);
        }
        else {
            out.append(text, from, to);
        }
        out.append(UNIT_SEPARATOR);
    }

    /** The TERM annotations of the linguistics tree, sorted by span and word, as TokenExtractor::extract. */
    static List<SpanTerm> terms(StringFieldValue value, String text) {
        SpanTree tree = value.getSpanTree(SpanTrees.LINGUISTICS);
        if (tree == null) return List.of();
        List<SpanTerm> terms = new ArrayList<>();
        for (Annotation annotation : tree) {
            SpanNode span = annotation.getSpanNode();
            if (span == null || annotation.getType() != AnnotationTypes.TERM) continue;
            int from = span.getFrom();
            int length = span.getTo() - from;
            if (length <= 0 || from < 0 || from + length > text.length()) continue;
            FieldValue alternative = annotation.getFieldValue();
            String word = alternative != null ? alternative.toString() : text.substring(from, from + length);
            word = sanitized(word);
            if ( ! word.isEmpty()) terms.add(new SpanTerm(from, length, word, alternative != null));
        }
        terms.sort(null);
        return terms;
    }

    /** A word up to a NUL character; empty when longer than the extractor's limit. */
    private static String sanitized(String word) {
        int nul = word.indexOf('\0');
        if (nul >= 0) word = word.substring(0, nul);
        return word.getBytes(StandardCharsets.UTF_8).length > MAX_WORD_BYTES ? "" : word;
    }

}
