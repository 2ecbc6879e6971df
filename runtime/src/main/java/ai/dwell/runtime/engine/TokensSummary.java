package ai.dwell.runtime.engine;

import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.SpanNode;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.slime.Cursor;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code tokens} summary command: a string field's terms as its indexing statements annotated them (the TERM
 * annotations of the linguistics span tree), as proton's tokens writer renders them. A string becomes an array
 * with one entry per annotated span, in span order: the term, or an array of the terms where several annotate the
 * same span (a stem and its original, say), ordered by their UTF-8 bytes. A term is the annotation's value, else
 * the text of its span; empty ones and ones over 1 MiB of UTF-8 (proton's longest word) are left out. An array
 * or weighted set of strings becomes an array of those arrays, one per element (a weighted set's weights left out).
 */
final class TokensSummary {

    /** proton's FieldInverter::max_word_len: longer words are neither indexed nor shown. */
    static final int MAX_WORD_BYTES = 1 << 20;

    private TokensSummary() {}

    /** Writes the tokens of the value under the name; nothing for a missing value. */
    static void write(Cursor docsum, String name, FieldValue value) {
        if (value == null) return;
        if (value instanceof StringFieldValue string) writeString(docsum.setArray(name), string);
        else if (value instanceof Array<?> array) {
            Cursor elements = docsum.setArray(name);
            for (Object element : array.getValues()) writeElement(elements, (FieldValue) element);
        }
        else if (value instanceof WeightedSet<?> set) {
            Cursor elements = docsum.setArray(name);
            for (Object element : set.keySet()) writeElement(elements, (FieldValue) element);
        }
        else throw new IllegalArgumentException("Summary field '" + name + "' (tokens): a field of type " + value.getDataType().getName() +
                                                " has no tokens; only string fields and arrays and weighted sets of them");
    }

    private static void writeElement(Cursor elements, FieldValue element) {
        if (element instanceof StringFieldValue string) writeString(elements.addArray(), string);
    }

    private static void writeString(Cursor tokens, StringFieldValue value) {
        List<Term> terms = terms(value);
        for (int i = 0; i < terms.size(); ) {
            int end = i + 1;
            while (end < terms.size() && terms.get(end).sameSpan(terms.get(i))) end++;
            if (end - i == 1) tokens.addString(terms.get(i).word());
            else {
                Cursor alternatives = tokens.addArray();
                for (int j = i; j < end; j++) alternatives.addString(terms.get(j).word());
            }
            i = end;
        }
    }

    /** The value's terms in span order (start, then length), then by their UTF-8 bytes. */
    static List<Term> terms(StringFieldValue value) {
        SpanTree tree = value.getSpanTree(SpanTrees.LINGUISTICS);
        if (tree == null) return List.of();
        String text = value.getString();
        List<Term> terms = new ArrayList<>();
        for (Annotation annotation : tree) {
            SpanNode node = annotation.getSpanNode();
            if (node == null || annotation.getType() != AnnotationTypes.TERM) continue;
            int from = node.getFrom(), to = node.getTo(); // of a span list, the extent of all its spans
            if (to <= from || from < 0 || to > text.length()) continue;
            FieldValue alternative = annotation.getFieldValue();
            String word = alternative != null ? alternative.toString() : text.substring(from, to);
            byte[] utf8 = word.getBytes(StandardCharsets.UTF_8);
            if (utf8.length == 0 || utf8.length > MAX_WORD_BYTES) continue;
            terms.add(new Term(from, to - from, word, utf8));
        }
        terms.sort(Term::compareTo);
        return terms;
    }

    record Term(int from, int length, String word, byte[] utf8) implements Comparable<Term> {

        boolean sameSpan(Term other) { return from == other.from && length == other.length; }

        @Override
        public int compareTo(Term other) {
            if (from != other.from) return Integer.compare(from, other.from);
            if (length != other.length) return Integer.compare(length, other.length);
            return Arrays.compareUnsigned(utf8, other.utf8);
        }

    }

}
