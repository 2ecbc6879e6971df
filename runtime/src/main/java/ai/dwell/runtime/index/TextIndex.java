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
 *
 * <p>Per document it keeps only references: the postings its terms are in (to remove it again) and,
 * for a term at a single position below {@link #SHARED_POSITIONS}, a shared positions array. A
 * comment has some twenty terms, most of them once, so a string and a small array per term and
 * document were most of the index's memory.
 */
public final class TextIndex {

    /** The occurrences of one term. */
    public static final class Postings {
        private final String term;
        private final PostingList documents = new PostingList();
        private final LidPositions positions = new LidPositions();

        private Postings(String term) { this.term = term; }

        public PostingList documents() { return documents; }
        /** Positions of the term in the document, ascending; empty if it does not occur. Shared: never modify it. */
        public int[] positions(int lid) { return positions.get(lid); }
        public int documentCount() { return documents.size(); }
    }

    /** Positions arrays of one position below this are shared by every term and document at that position. */
    static final int SHARED_POSITIONS = 4096;
    private static final int[][] SINGLE_POSITIONS = new int[SHARED_POSITIONS][];
    static {
        for (int position = 0; position < SHARED_POSITIONS; position++) SINGLE_POSITIONS[position] = new int[] { position };
    }
    private static final Postings[] NO_TERMS = new Postings[0];

    private final String field;
    private final Map<String, Postings> terms = new HashMap<>();
    private Postings[][] termsOf = new Postings[0][]; // by local id: the postings of the document's terms, null if not indexed
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
        Postings[] documentTerms = occurrences.isEmpty() ? NO_TERMS : new Postings[occurrences.size()];
        int next = 0;
        for (var entry : occurrences.entrySet()) {
            Postings postings = terms.computeIfAbsent(entry.getKey(), Postings::new);
            postings.documents.add(lid);
            postings.positions.put(lid, positions(entry.getValue()));
            documentTerms[next++] = postings;
        }
        if (lid >= termsOf.length) termsOf = Arrays.copyOf(termsOf, Attribute.grow(termsOf.length, lid));
        termsOf[lid] = documentTerms;
        if (lid >= lengths.length) lengths = Arrays.copyOf(lengths, Attribute.grow(lengths.length, lid));
        lengths[lid] = length;
        totalLength += length;
        documentCount++;
    }

    /** Removes the local id from the index. */
    public void remove(int lid) {
        Postings[] old = lid < termsOf.length ? termsOf[lid] : null;
        if (old == null) return;
        termsOf[lid] = null;
        for (Postings postings : old) {
            postings.documents.remove(lid);
            postings.positions.remove(lid);
            if (postings.documents.isEmpty()) terms.remove(postings.term);
        }
        totalLength -= lengths[lid];
        lengths[lid] = 0;
        documentCount--;
    }

    /** The distinct positions, ascending (tokens come in position order); a shared array for one low position. */
    private static int[] positions(List<Integer> occurrences) {
        if (occurrences.size() == 1 && occurrences.get(0) < SHARED_POSITIONS) return SINGLE_POSITIONS[occurrences.get(0)];
        return occurrences.stream().mapToInt(Integer::intValue).distinct().toArray();
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
