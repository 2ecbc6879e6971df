package ai.dwell.runtime.match;

import ai.dwell.runtime.index.NumericRange;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol.QueryTreeItem;

import java.util.Optional;

/**
 * Finds the range a query restricts a field to, as proton's RangeQueryLocator does for match-phase
 * limiting: the first range term on the field among the children of ANDs, and the first children of
 * AND_NOT and RANK, depth first. Other items are not looked into.
 */
public final class RangeLocator {

    private RangeLocator() {}

    public static Optional<NumericRange> firstRange(SearchProtocol.QueryTree tree, String field) {
        return tree.hasRoot() ? firstRange(tree.getRoot(), field) : Optional.empty();
    }

    private static Optional<NumericRange> firstRange(QueryTreeItem item, String field) {
        return switch (item.getItemCase()) {
            case ITEM_AND -> {
                for (QueryTreeItem child : item.getItemAnd().getChildrenList()) {
                    Optional<NumericRange> range = firstRange(child, field);
                    if (range.isPresent()) yield range;
                }
                yield Optional.empty();
            }
            case ITEM_AND_NOT -> first(item.getItemAndNot().getChildrenList(), field);
            case ITEM_RANK -> first(item.getItemRank().getChildrenList(), field);
            case ITEM_INTEGER_RANGE_TERM -> {
                var range = item.getItemIntegerRangeTerm();
                yield on(range.getProperties(), field, new NumericRange(range.getLowerLimit(), range.getLowerInclusive(),
                                                                        range.getUpperLimit(), range.getUpperInclusive()));
            }
            case ITEM_FLOATING_POINT_RANGE_TERM -> {
                var range = item.getItemFloatingPointRangeTerm();
                yield on(range.getProperties(), field, new NumericRange(range.getLowerLimit(), range.getLowerInclusive(),
                                                                        range.getUpperLimit(), range.getUpperInclusive()));
            }
            case ITEM_WORD_TERM -> on(item.getItemWordTerm().getProperties(), field, NumericRange.parse(item.getItemWordTerm().getWord()));
            default -> Optional.empty();
        };
    }

    private static Optional<NumericRange> first(java.util.List<QueryTreeItem> children, String field) {
        return children.isEmpty() ? Optional.empty() : firstRange(children.get(0), field);
    }

    private static Optional<NumericRange> on(SearchProtocol.TermItemProperties properties, String field, NumericRange range) {
        return properties.getIndex().equals(field) ? Optional.ofNullable(range) : Optional.empty();
    }

}
