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
 * where the term occurs), plus each document's field length in terms, for bm25. A multi-value field (array or
 * weighted set of strings) indexes the terms of every element, its elements' positions one after the other with
 * {@link #ELEMENT_GAP} between them, and its length is the sum of its elements'. A weighted set field also keeps each
 * term's weight in the document: the weight of the first element the term occurs in, as proton's term field match data
 * gives a term the element weight of its first position (rawScore and the dotProduct and wand items read it), and
 * each element's weight, which the occurrences in it carry ({@link #elementWeight}).
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
        private final LidPositions weights; // of a weighted set field: by local id, the term's weight as a one-int array

        private Postings(String term, boolean weighted) {
            this.term = term;
            this.weights = weighted ? new LidPositions() : null;
        }

        public PostingList documents() { return documents; }
        /** Positions of the term in the document, ascending; empty if it does not occur. Shared: never modify it. */
        public int[] positions(int lid) { return positions.get(lid); }
        public int documentCount() { return documents.size(); }
        /** The term's weight in the document: in a weighted set field, its element's weight; else 1; 0 if it does not occur. */
        public int weight(int lid) {
            if (weights == null) return positions.get(lid).length == 0 ? 0 : 1;
            int[] weight = weights.get(lid);
            return weight.length == 0 ? 0 : weight[0];
        }
    }

    /** Positions arrays of one position below this are shared by every term and document at that position. */
    static final int SHARED_POSITIONS = 4096;
    private static final int[][] SINGLE_POSITIONS = new int[SHARED_POSITIONS][];
    static {
        for (int position = 0; position < SHARED_POSITIONS; position++) SINGLE_POSITIONS[position] = new int[] { position };
    }
    private static final Postings[] NO_TERMS = new Postings[0];

    private final String field;
    private final boolean weighted;
    private final boolean multiValue;
    private final Map<String, Postings> terms = new HashMap<>();
    private Postings[][] termsOf = new Postings[0][]; // by local id: the postings of the document's terms, null if not indexed
    private int[] lengths = new int[0];
    private int[] elementCounts = new int[0]; // by local id, of a multi-value field: its elements, empty ones too
    private int[][] elementWeights = new int[0][]; // by local id, of a weighted set field: each element's weight, in element order
    private long totalLength = 0;
    private long totalElements = 0;
    private int documentCount = 0;

    public TextIndex(String field) { this(field, false); }

    /** @param weighted whether the field is a weighted set, whose elements' weights are kept */
    public TextIndex(String field, boolean weighted) {
        this(field, weighted, weighted);
    }

    /**
     * @param weighted whether the field is a weighted set, whose elements' weights are kept
     * @param multiValue whether the field is an array or weighted set, whose positions run over several elements
     */
    public TextIndex(String field, boolean weighted, boolean multiValue) {
        this.field = field;
        this.weighted = weighted;
        this.multiValue = multiValue || weighted;
    }

    /** Whether this is a weighted set field, which keeps its terms' weights. */
    public boolean isWeighted() { return weighted; }

    /** Whether this is an array or weighted set field: its documents' positions run over several elements. */
    public boolean isMultiValue() { return multiValue; }

    /**
     * The elements of a document's field, as proton numbers them (the i-th string of an array, empty ones too) with their
     * lengths: where each element's positions begin in the positions this index keeps (see {@link #ELEMENT_GAP}), and how
     * many it has. Reused from document to document: {@link #elementsOf} fills it without allocating once it has grown.
     */
    public static final class Elements {

        private int count;
        private int[] starts = new int[4];
        private int[] lengths = new int[4];
        private long[] occupied = new long[4];

        public int count() { return count; }
        public int start(int element) { return starts[element]; }
        public int length(int element) { return lengths[element]; }

        /** The element a position of the field is in (the last one beginning at or before it). */
        public int elementOf(int position) {
            int low = 0, high = count - 1;
            while (low < high) {
                int middle = (low + high + 1) >>> 1;
                if (starts[middle] <= position) low = middle;
                else high = middle - 1;
            }
            return low;
        }

        private void add(int start, int length) {
            if (count == starts.length) {
                starts = Arrays.copyOf(starts, count * 2);
                lengths = Arrays.copyOf(lengths, count * 2);
            }
            starts[count] = start;
            lengths[count++] = length;
        }

    }

    /**
     * Fills elements with the elements of the document's field: one, the whole field, for a single string; for an array
     * or weighted set, recovered from the positions its terms occupy: every position of an element holds a term, and one
     * free position follows each element (also an empty one), so each run of held positions ended by a free one is an
     * element. (Empty elements after the last non-empty one hold no position and are not counted: no term is in them.)
     */
    public void elementsOf(int lid, Elements elements) {
        elements.count = 0;
        if ( ! multiValue) {
            elements.add(0, fieldLength(lid));
            return;
        }
        Postings[] documentTerms = lid < termsOf.length ? termsOf[lid] : null;
        if (documentTerms == null) return;
        int end = 0;
        for (Postings postings : documentTerms) {
            int[] positions = postings.positions(lid);
            if (positions.length > 0) end = Math.max(end, positions[positions.length - 1] + 1);
        }
        int words = (end >>> 6) + 1;
        if (elements.occupied.length < words) elements.occupied = new long[Math.max(words, elements.occupied.length * 2)];
        long[] occupied = elements.occupied;
        Arrays.fill(occupied, 0, words, 0L);
        for (Postings postings : documentTerms)
            for (int position : postings.positions(lid)) occupied[position >>> 6] |= 1L << position;
        int start = 0;
        for (int position = 0; position < end; position++) {
            if ((occupied[position >>> 6] & (1L << position)) != 0) continue;
            elements.add(start, position - start);
            start = position + 1; // the one free position is the gap (ELEMENT_GAP is 1)
        }
        if (start < end) elements.add(start, end - start);
    }

    public String field() { return field; }

    /** The weight of the document's element (by its number, as {@link #elementsOf} numbers them): in a weighted set its weight, else 1. */
    public int elementWeight(int lid, int element) {
        int[] weights = lid < elementWeights.length ? elementWeights[lid] : null;
        return weights != null && element < weights.length ? weights[element] : 1;
    }

    /** The postings of a (lowercased) term, or null if no document has it. */
    public Postings postings(String term) { return terms.get(term.toLowerCase(Locale.ROOT)); }

    /** The number of terms in the field of this document. */
    public int fieldLength(int lid) { return lid < lengths.length ? lengths[lid] : 0; }

    /** The average field length over the documents that have this field. */
    public double averageFieldLength() { return documentCount == 0 ? 0 : (double) totalLength / documentCount; }

    public int documentCount() { return documentCount; }

    /**
     * The average element length over the documents that have this field: their length over their elements (every
     * element of an array or weighted set, empty ones too; a single string is one element), as proton's field length
     * calculator gives it while it averages its first 100000 documents (the average field length over the average number
     * of elements). What elementwise(bm25(field),...) divides an element's length by.
     */
    public double averageElementLength() {
        if ( ! multiValue) return averageFieldLength();
        return totalElements == 0 ? 0 : (double) totalLength / totalElements;
    }

    /** Indexes the value of the field for the local id (replacing any earlier value). */
    public void insert(int lid, FieldValue value) {
        remove(lid);
        Map<String, List<Integer>> occurrences = new HashMap<>();
        Map<String, Integer> termWeights = weighted ? new HashMap<>() : null;
        int length = 0;
        int elementCount = 0;
        List<Integer> weightsOfElements = weighted ? new ArrayList<>() : null;
        if (value instanceof StringFieldValue string) {
            length = addTokens(string, 0, occurrences);
            if (weighted) occurrences.keySet().forEach(term -> termWeights.put(term, 1));
        }
        else if (value instanceof com.yahoo.document.datatypes.CollectionFieldValue<?> elements) { // array or weighted set of strings
            int start = 0;
            for (var values = elements.fieldValueIterator(); values.hasNext(); ) {
                if ( ! (values.next() instanceof StringFieldValue string)) continue;
                int elementLength = addTokens(string, start, occurrences);
                if (weighted) {
                    Integer weight = elements instanceof com.yahoo.document.datatypes.WeightedSet<?> set ? set.get(string) : null;
                    for (Token token : tokens(string)) termWeights.putIfAbsent(token.term(), weight == null ? 1 : weight);
                    weightsOfElements.add(weight == null ? 1 : weight);
                }
                length += elementLength;
                elementCount++;
                start += elementLength + ELEMENT_GAP;
            }
        }
        else return;
        Postings[] documentTerms = occurrences.isEmpty() ? NO_TERMS : new Postings[occurrences.size()];
        int next = 0;
        for (var entry : occurrences.entrySet()) {
            Postings postings = terms.computeIfAbsent(entry.getKey(), term -> new Postings(term, weighted));
            postings.documents.add(lid);
            postings.positions.put(lid, positions(entry.getValue()));
            if (weighted) postings.weights.put(lid, new int[] { termWeights.get(entry.getKey()) });
            documentTerms[next++] = postings;
        }
        if (lid >= termsOf.length) termsOf = Arrays.copyOf(termsOf, Attribute.grow(termsOf.length, lid));
        termsOf[lid] = documentTerms;
        if (lid >= lengths.length) lengths = Arrays.copyOf(lengths, Attribute.grow(lengths.length, lid));
        lengths[lid] = length;
        totalLength += length;
        if (multiValue) {
            if (lid >= elementCounts.length) elementCounts = Arrays.copyOf(elementCounts, Attribute.grow(elementCounts.length, lid));
            elementCounts[lid] = elementCount;
            totalElements += elementCount;
        }
        if (weighted) {
            if (lid >= elementWeights.length) elementWeights = Arrays.copyOf(elementWeights, Attribute.grow(elementWeights.length, lid));
            elementWeights[lid] = weightsOfElements.stream().mapToInt(Integer::intValue).toArray();
        }
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
            if (weighted) postings.weights.remove(lid);
            if (postings.documents.isEmpty()) terms.remove(postings.term);
        }
        totalLength -= lengths[lid];
        lengths[lid] = 0;
        if (multiValue) {
            totalElements -= elementCounts[lid];
            elementCounts[lid] = 0;
        }
        if (weighted && lid < elementWeights.length) elementWeights[lid] = null;
        documentCount--;
    }

    /** Writes the index's postings (with positions) and field lengths, for {@link #readState}. */
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        int length = Math.min(lidLimit, lengths.length);
        out.writeInt(length);
        out.writeInts(lengths, 0, length);
        out.writeLong(totalLength);
        out.writeInt(documentCount);
        if (multiValue) { // (a type with a multi-value index field has its own fingerprint: see IndexStateFile)
            int counted = Math.min(lidLimit, elementCounts.length);
            out.writeInt(counted);
            out.writeInts(elementCounts, 0, counted);
            out.writeLong(totalElements);
        }
        if (weighted) { // (a type with a weighted set index field has its own fingerprint: see IndexStateFile)
            int weighed = Math.min(lidLimit, elementWeights.length);
            out.writeInt(weighed);
            for (int lid = 0; lid < weighed; lid++) {
                int[] weights = elementWeights[lid];
                out.writeInt(weights == null ? -1 : weights.length);
                if (weights != null) out.writeInts(weights, 0, weights.length);
            }
        }
        java.util.BitSet indexed = new java.util.BitSet();
        for (int lid = 0; lid < Math.min(lidLimit, termsOf.length); lid++) if (termsOf[lid] != null) indexed.set(lid);
        Attribute.writeBits(out, indexed);
        out.writeInt(terms.size());
        for (Postings postings : terms.values()) {
            out.writeString(postings.term);
            int size = postings.documents.size();
            int[] lids = new int[size];
            int[] counts = new int[size];
            int total = 0;
            for (int i = 0; i < size; i++) {
                lids[i] = postings.documents.lid(i);
                counts[i] = postings.positions.get(lids[i]).length;
                total += counts[i];
            }
            out.writeInt(size);
            out.writeInts(lids, 0, size);
            out.writeInts(counts, 0, size);
            int[] all = new int[total];
            int at = 0;
            for (int i = 0; i < size; i++) {
                int[] positions = postings.positions.get(lids[i]);
                System.arraycopy(positions, 0, all, at, positions.length);
                at += positions.length;
            }
            out.writeInt(total);
            out.writeInts(all, 0, total);
            if (weighted) { // (a type with a weighted set index field has its own fingerprint: see IndexStateFile)
                int[] weights = new int[size];
                for (int i = 0; i < size; i++) weights[i] = postings.weight(lids[i]);
                out.writeInts(weights, 0, size);
            }
        }
    }

    /** Restores what {@link #writeState} wrote into this empty index. */
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        int length = in.readLength(4);
        lengths = new int[Math.max(16, length)];
        in.readInts(lengths, 0, length);
        totalLength = in.readLong();
        documentCount = in.readInt();
        if (multiValue) {
            int counted = in.readLength(4);
            elementCounts = new int[Math.max(16, counted)];
            in.readInts(elementCounts, 0, counted);
            totalElements = in.readLong();
        }
        if (weighted) {
            int weighed = in.readLength(4);
            if (weighed > lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Text index '" + field + "': element weights out of range");
            elementWeights = new int[Math.max(16, weighed)][];
            for (int lid = 0; lid < weighed; lid++) {
                int count = in.readInt();
                if (count < -1) throw new ai.dwell.runtime.format.CorruptStateException("Text index '" + field + "': element weights out of range");
                if (count < 0) continue;
                elementWeights[lid] = new int[count];
                in.readInts(elementWeights[lid], 0, count);
            }
        }
        java.util.BitSet indexed = Attribute.readBits(in);
        if (indexed.length() > lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Text index '" + field + "': local id out of range");
        int termCount = in.readLength(8);
        int[] termsPerLid = new int[Math.max(16, lidLimit)];
        List<Postings> all = new ArrayList<>(termCount);
        for (int t = 0; t < termCount; t++) {
            Postings postings = new Postings(in.readString(), weighted);
            int size = in.readLength(8);
            int[] lids = new int[size];
            int[] counts = new int[size];
            in.readInts(lids, 0, size);
            in.readInts(counts, 0, size);
            int total = in.readLength(4);
            int[] positions = new int[total];
            in.readInts(positions, 0, total);
            int[] weights = new int[weighted ? size : 0];
            if (weighted) in.readInts(weights, 0, size);
            int at = 0;
            for (int i = 0; i < size; i++) {
                int lid = lids[i];
                if (lid <= 0 || lid >= lidLimit || counts[i] < 0 || at + counts[i] > total)
                    throw new ai.dwell.runtime.format.CorruptStateException("Text index '" + field + "': posting out of range");
                postings.documents.add(lid);
                int[] documentPositions = counts[i] == 1 && positions[at] >= 0 && positions[at] < SHARED_POSITIONS
                                          ? SINGLE_POSITIONS[positions[at]] : Arrays.copyOfRange(positions, at, at + counts[i]);
                postings.positions.put(lid, documentPositions);
                if (weighted) postings.weights.put(lid, new int[] { weights[i] });
                at += counts[i];
                termsPerLid[lid]++;
            }
            terms.put(postings.term, postings);
            all.add(postings);
        }
        termsOf = new Postings[termsPerLid.length][];
        int[] filled = new int[termsPerLid.length];
        for (Postings postings : all) {
            for (int i = 0; i < postings.documents.size(); i++) {
                int lid = postings.documents.lid(i);
                if (termsOf[lid] == null) termsOf[lid] = new Postings[termsPerLid[lid]];
                termsOf[lid][filled[lid]++] = postings;
            }
        }
        for (int lid = indexed.nextSetBit(0); lid >= 0; lid = indexed.nextSetBit(lid + 1))
            if (termsOf[lid] == null) termsOf[lid] = NO_TERMS;
    }

    /**
     * The positions between the elements of a multi-value field: a phrase never spans two elements. Vespa keeps an
     * element id with each position; here element i's positions follow element i-1's after this gap.
     */
    static final int ELEMENT_GAP = 1;

    /** Adds the string's tokens at positions from start on; returns its length (its last position + 1 - start). */
    private static int addTokens(StringFieldValue string, int start, Map<String, List<Integer>> occurrences) {
        List<Token> tokens = tokens(string);
        for (Token token : tokens)
            occurrences.computeIfAbsent(token.term(), k -> new ArrayList<>()).add(start + token.position());
        return tokens.isEmpty() ? 0 : tokens.get(tokens.size() - 1).position() + 1;
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
