package ai.dwell.runtime.match;

import java.util.List;
import java.util.function.Supplier;

/**
 * A ranked term of a query as proton's rank features see it (its term data): one per ranked term item (a word, a
 * phrase, a range, an in, a dotProduct, ...), in the query tree's order, leaving out what an AND_NOT excludes, with
 * the fields it searches in this document type. Native rank features read these.
 *
 * @param uniqueId the item's unique id in the request (0 when none), which vespa.term.&lt;id&gt; rank properties name
 * @param weight the item's weight (100 unless set)
 * @param phraseLength the number of words of a phrase, else 1
 * @param fields the fields searched, in the order the item's index or fieldset names them
 * @param matchingDocuments the item's document frequency as proton estimates it for significance: the documents of
 *                          this node its fields match, summed over its fields, at most totalDocuments
 * @param totalDocuments the documents of this node (at least 1, as proton counts from its local id limit)
 */
public record RankTerm(int uniqueId, int weight, int phraseLength, List<Field> fields, long matchingDocuments, long totalDocuments) {

    public RankTerm {
        fields = List.copyOf(fields);
    }

    /**
     * A field a term searches: whether it is an attribute (else an index field), and how to read what the term matched
     * in it for a document (a new reader each time, for the one thread of a rank program: it may prepare a set of the
     * matching documents first).
     */
    public record Field(String name, boolean attribute, Supplier<Unpacker> unpacker) {}

    /** Reads what a term matched in a field of a document, as proton's search iterators unpack it. */
    @FunctionalInterface
    public interface Unpacker {

        /** Fills data with the occurrences in the document and returns true if the term matched it in this field; else false (data is then left as it is). */
        boolean unpack(int lid, TermFieldMatchData data);

    }

}
