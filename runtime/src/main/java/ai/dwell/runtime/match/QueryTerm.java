package ai.dwell.runtime.match;

/**
 * A term of the query that ranking sees: the field it was searched in (after fieldset expansion),
 * the term as indexed (lowercased for text fields), and its weight.
 */
public record QueryTerm(String field, String term, int weight) {
}
