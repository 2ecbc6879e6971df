package ai.dwell.runtime.match;

/**
 * A term of the query that ranking sees: the field it was searched in (after fieldset expansion),
 * the term as indexed (lowercased for text fields), its weight, and its kind: a plain term, or a token of a
 * dotProduct or wand item (its weight the token's, for rawScore), with the item's unique id (for itemRawScore).
 */
public record QueryTerm(String field, String term, int weight, Kind kind, int item) {

    public enum Kind { TERM, DOT_PRODUCT }

    /** A plain term. */
    public QueryTerm(String field, String term, int weight) { this(field, term, weight, Kind.TERM, 0); }

    public boolean isPlain() { return kind == Kind.TERM; }

}
