package ai.dwell.runtime.match;

import ai.dwell.runtime.index.NumericRange;
import ai.dwell.runtime.match.query.QueryItem;

import java.util.List;
import java.util.Optional;

/**
 * Finds the range a query restricts a field to, as proton's RangeQueryLocator does for match-phase
 * limiting: the first range term on the field among the children of ANDs, and the first children of
 * AND_NOT and RANK, depth first. Other items are not looked into.
 */
public final class RangeLocator {

    private RangeLocator() {}

    public static Optional<NumericRange> firstRange(QueryItem item, String field) {
        if (item instanceof QueryItem.And and) {
            for (QueryItem child : and.children()) {
                Optional<NumericRange> range = firstRange(child, field);
                if (range.isPresent()) return range;
            }
            return Optional.empty();
        }
        if (item instanceof QueryItem.AndNot andNot) return first(andNot.children(), field);
        if (item instanceof QueryItem.Rank rank) return first(rank.children(), field);
        if (item instanceof QueryItem.Range range)
            return on(range.index(), field, new NumericRange(range.low(), range.lowInclusive(), range.high(), range.highInclusive()));
        if (item instanceof QueryItem.Term term && term.type() == QueryItem.TermType.WORD)
            return on(term.index(), field, NumericRange.parse(term.word()));
        return Optional.empty();
    }

    private static Optional<NumericRange> first(List<QueryItem> children, String field) {
        return children.isEmpty() ? Optional.empty() : firstRange(children.get(0), field);
    }

    private static Optional<NumericRange> on(String index, String field, NumericRange range) {
        return index.equals(field) ? Optional.ofNullable(range) : Optional.empty();
    }

}
