package ai.dwell.runtime.match;

import ai.dwell.runtime.index.TextIndex;

import java.util.Arrays;

/**
 * What a ranked term matched in one field of one document, as proton's term field match data holds it for rank
 * features: the occurrences (element, position in the element, the element's length and weight), in element and
 * position order. A term without positions (an attribute match, a raw score) has none; its weight is then 1.
 * One instance is reused from document to document by the one thread that ranks with it: filling it allocates
 * nothing once its arrays have grown.
 */
public final class TermFieldMatchData {

    /** The length searchlib gives an occurrence whose element length is not known. */
    public static final int UNKNOWN_LENGTH = 1_000_000;

    /** The most occurrences proton keeps of a term in a field of a document. */
    public static final int MAX_OCCURRENCES = 65_535;

    private int size;
    private int[] elements = new int[4];
    private int[] positions = new int[4];
    private int[] lengths = new int[4];
    private int[] weights = new int[4];
    private int maxLength;
    private final TextIndex.Elements fieldElements = new TextIndex.Elements();

    /** Starts the data of a new document: no occurrences. */
    void reset() {
        size = 0;
        maxLength = 0;
    }

    /**
     * Drops the occurrences of the document just unpacked, keeping that it matched: the match data proton gives a term
     * in a filter field (rank: filter), whose iterators unpack the document only.
     */
    public void dropOccurrences() { reset(); }

    /** Adds an occurrence (after those before it in element and position order). */
    void add(int element, int position, int length, int weight) {
        if (size == MAX_OCCURRENCES) return;
        if (size == elements.length) {
            int grown = size * 2;
            elements = Arrays.copyOf(elements, grown);
            positions = Arrays.copyOf(positions, grown);
            lengths = Arrays.copyOf(lengths, grown);
            weights = Arrays.copyOf(weights, grown);
        }
        elements[size] = element;
        positions[size] = position;
        lengths[size] = length;
        weights[size++] = weight;
        maxLength = Math.max(maxLength, length);
    }

    /** Scratch space for the elements of a multi-value field. */
    TextIndex.Elements fieldElements() { return fieldElements; }

    /** The number of occurrences. */
    public int size() { return size; }
    public int element(int i) { return elements[i]; }
    public int position(int i) { return positions[i]; }
    public int elementLength(int i) { return lengths[i]; }
    public int elementWeight(int i) { return weights[i]; }

    /** The weight of the first occurrence, or 1 when there is none (what attribute matching reads). */
    public int weight() { return size == 0 ? 1 : weights[0]; }

    /** The field length rank features see: the longest element holding an occurrence, or {@link #UNKNOWN_LENGTH}. */
    public int fieldLength() { return maxLength != 0 ? maxLength : UNKNOWN_LENGTH; }

}
