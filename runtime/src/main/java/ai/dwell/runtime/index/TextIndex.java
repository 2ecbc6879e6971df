package ai.dwell.runtime.index;

import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.StringFieldValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The inverted index of one indexed string field: term → postings (local ids with the positions
 * where the term occurs), plus each document's field length in terms, for bm25.
 * Terms are the TERM annotations of the linguistics span tree that the indexing script produced
 * (the annotation's value where it has one, else the annotated text), lowercased.
 */
public final class TextIndex {

    /** The occurrences of one term. */
    public static final class Postings {
        private final PostingList documents = new PostingList();
        private final LidPositions positions = new LidPositions();

        public PostingList documents() { return documents; }
        /** Positions of the term in the document, ascending; empty if it does not occur. */
        public int[] positions(int lid) { return positions.get(lid); }
        public int documentCount() { return documents.size(); }
    }

    private final String field;
    private final Map<String, Postings> terms = new HashMap<>();
    private final Map<Integer, List<String>> termsOf = new HashMap<>();
    private int[] lengths = new int[0];
    private long totalLength = 0;
    private int documentCount = 0;

    public TextIndex(String field) { this.field = field; }

    public String field() { return field; }

    /** The postings of a (lowercased) term, or null if no document has it. */
    public Postings postings(String term) { return terms.get(term.toLowerCase(Locale.ROOT)); }

    /** The number of terms in the field of this document. */
    public int fieldLength(int lid) { return lid < lengths.length ? lengths[lid] : 0; }

    /** The average field length over the documents that have this field. */
    public double averageFieldLength() { return documentCount == 0 ? 0 : (double) totalLength / documentCount; }

    public int documentCount() { return documentCount; }

    /** Indexes the value of the field for the local id (replacing any earlier value). */
    public void insert(int lid, FieldValue value) {
        remove(lid);
        if ( ! (value instanceof StringFieldValue string)) return;
        List<Token> tokens = tokens(string);
        Map<String, List<Integer>> occurrences = new HashMap<>();
        for (Token token : tokens)
            occurrences.computeIfAbsent(token.term(), k -> new ArrayList<>()).add(token.position());
        int length = tokens.isEmpty() ? 0 : tokens.get(tokens.size() - 1).position() + 1;
        for (var entry : occurrences.entrySet()) {
            Postings postings = terms.computeIfAbsent(entry.getKey(), k -> new Postings());
            postings.documents.add(lid);
            postings.positions.put(lid, entry.getValue().stream().mapToInt(Integer::intValue).distinct().toArray());
        }
        termsOf.put(lid, List.copyOf(occurrences.keySet()));
        if (lid >= lengths.length) lengths = Arrays.copyOf(lengths, Attribute.grow(lengths.length, lid));
        lengths[lid] = length;
        totalLength += length;
        documentCount++;
    }

    /** Removes the local id from the index. */
    public void remove(int lid) {
        List<String> old = termsOf.remove(lid);
        if (old == null) return;
        for (String term : old) {
            Postings postings = terms.get(term);
            postings.documents.remove(lid);
            postings.positions.remove(lid);
            if (postings.documents.isEmpty()) terms.remove(term);
        }
        totalLength -= lengths[lid];
        lengths[lid] = 0;
        documentCount--;
    }

    /** A term at a position; alternatives of a word (e.g. stems) share its position. */
    record Token(String term, int position) {}

    /** The indexed terms of a string, in order. */
    static List<Token> tokens(StringFieldValue value) {
        SpanTree tree = value.getSpanTree(SpanTrees.LINGUISTICS);
        if (tree == null) return List.of(); // linguistics found no term (e.g. "..."): no terms, as proton's token extractor
        String text = value.getString();
        List<Annotation> annotations = new ArrayList<>();
        for (Annotation annotation : tree)
            if (annotation.getType() == AnnotationTypes.TERM && annotation.getSpanNode() != null) annotations.add(annotation);
        annotations.sort((a, b) -> Integer.compare(a.getSpanNode().getFrom(), b.getSpanNode().getFrom()));
        List<Token> tokens = new ArrayList<>(annotations.size());
        int position = -1;
        int lastFrom = -1;
        for (Annotation annotation : annotations) {
            int from = annotation.getSpanNode().getFrom();
            if (from != lastFrom) { position++; lastFrom = from; }
            FieldValue term = annotation.getFieldValue();
            String token = term != null ? term.toString() : annotation.getSpanNode().getText(text).toString();
            tokens.add(new Token(token.toLowerCase(Locale.ROOT), position));
        }
        return tokens;
    }

}
