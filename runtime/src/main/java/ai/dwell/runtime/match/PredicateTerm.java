package ai.dwell.runtime.match;

import ai.dwell.runtime.index.PredicateAttribute;

/**
 * A predicate item of a query as ranking sees it: the predicate field it searched and the documents it matched,
 * each with the bitmap of the subqueries it matched for, which the subqueries(field) feature reads.
 */
public record PredicateTerm(String field, PredicateAttribute.Hits hits) {

    /** The subqueries the document matched this item for: 0 when the item did not match it. */
    public long subqueries(int lid) { return hits.subqueries(lid); }

}
