package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.searchlib.aggregation.AggregationResult;
import com.yahoo.searchlib.aggregation.CountAggregationResult;
import com.yahoo.searchlib.aggregation.FS4Hit;
import com.yahoo.searchlib.aggregation.Group;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.searchlib.aggregation.GroupingLevel;
import com.yahoo.searchlib.aggregation.HitsAggregationResult;
import com.yahoo.searchlib.expression.AggregationRefNode;
import com.yahoo.searchlib.expression.AttributeNode;
import com.yahoo.searchlib.expression.ExpressionNode;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.expression.ResultNode;
import com.yahoo.searchlib.expression.StringResultNode;
import com.yahoo.vespa.config.search.AttributesConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs one search's grouping requests (searchlib Grouping objects from the request's grouping_blob) over the
 * ranked matches of one index, as proton's grouping engine does (searchlib aggregation Grouping::aggregate,
 * Group::aggregate, GroupingLevel::Grouper, Group::postMerge): levels before the first level are frozen (only
 * the groups of an earlier pass are visited), aggregates are collected from the first level on, and documents
 * go below a level only up to the last level. It supports levels that group by a single-value string or
 * integer attribute without a filter, count() and summary hits as outputs, ordering by them or by relevance.
 * Anything else fails naming it, before any document is grouped.
 *
 * Groups are created for every value seen and pruned to each level's precision by their order afterwards; this
 * gives the groups and counts proton gives whether or not it may stop creating groups early (ordered by
 * relevance, it keeps the first precision groups met in rank order: the same groups).
 */
public final class GroupingRunner {

    private final List<Grouping> groupings;
    private final DocumentIndex index;
    private final int distributionKey;
    private final List<Attribute[]> levelAttributes = new ArrayList<>();
    private final List<boolean[]> levelIntegral = new ArrayList<>();
    private final Map<Group, Map<Object, Group>> children = new IdentityHashMap<>();

    public GroupingRunner(List<Grouping> groupings, DocumentIndex index, int distributionKey) {
        this.groupings = groupings;
        this.index = index;
        this.distributionKey = distributionKey;
        for (Grouping grouping : groupings) {
            List<GroupingLevel> levels = grouping.getLevels();
            Attribute[] attributes = new Attribute[levels.size()];
            boolean[] integral = new boolean[levels.size()];
            for (int level = 0; level < levels.size(); level++) {
                GroupingLevel spec = levels.get(level);
                if (spec.getFilter() != null)
                    throw new UnsupportedFeatureException("Grouping filter " + spec.getFilter() + " is not supported by this content engine");
                if ( ! (spec.getExpression() instanceof AttributeNode attributeNode) || attributeNode.getClass() != AttributeNode.class)
                    throw new UnsupportedFeatureException("Grouping on " + spec.getExpression() + " is not supported by this content engine: only group(attribute)");
                String name = attributeNode.getAttributeName();
                AttributesConfig.Attribute config = index.attributeConfig(name)
                        .orElseThrow(() -> new IllegalArgumentException("No attribute '" + name + "' to group on in '" + index.name() + "'"));
                if (config.collectiontype() != AttributesConfig.Attribute.Collectiontype.SINGLE)
                    throw new UnsupportedFeatureException("Grouping on multi-value attribute '" + name + "' is not supported by this content engine");
                integral[level] = switch (config.datatype()) {
                    case STRING -> false;
                    case INT32, INT64 -> true;
                    default -> throw new UnsupportedFeatureException("Grouping on " + config.datatype() + " attribute '" + name + "' is not supported by this content engine");
                };
                attributes[level] = index.attribute(name).orElseThrow();
                check(spec.getGroupPrototype());
            }
            check(grouping.getRoot());
            levelAttributes.add(attributes);
            levelIntegral.add(integral);
            indexExisting(grouping.getRoot());
        }
    }

    /** Groups one matched document (in rank order, best first). */
    public void add(int lid, double rank, long position) {
        for (int i = 0; i < groupings.size(); i++) {
            Grouping grouping = groupings.get(i);
            if (grouping.getTopN() >= 0 && position >= grouping.getTopN()) continue;
            aggregate(grouping, i, grouping.getRoot(), 0, lid, rank);
        }
    }

    /** The groupings with their results, pruned and ordered as proton returns them. */
    public List<Grouping> finish() {
        for (Grouping grouping : groupings) {
            List<GroupingLevel> levels = grouping.getLevels();
            long[] maxGroups = new long[levels.size()];
            for (int level = 0; level < levels.size(); level++) { // proton prunes to precision; Group.postMerge to max groups
                maxGroups[level] = levels.get(level).getMaxGroups();
                levels.get(level).setMaxGroups(levels.get(level).getPrecision());
            }
            grouping.getRoot().postMerge(levels, grouping.getFirstLevel(), 0);
            for (int level = 0; level < levels.size(); level++) levels.get(level).setMaxGroups(maxGroups[level]);
            sortById(grouping.getRoot());
        }
        return groupings;
    }

    private void aggregate(Grouping grouping, int number, Group group, int level, int lid, double rank) {
        if (level >= grouping.getFirstLevel()) collect(group, lid, rank);
        if (level >= grouping.getLevels().size()) return;
        boolean frozen = level < grouping.getFirstLevel();
        Attribute attribute = levelAttributes.get(number)[level];
        boolean integral = levelIntegral.get(number)[level];
        Object key = integral ? (Object) attribute.longValue(lid) : stringValue(attribute, lid);
        Map<Object, Group> byValue = children.computeIfAbsent(group, g -> new HashMap<>());
        Group child = byValue.get(key);
        if (child == null) {
            if (frozen) return;
            child = grouping.getLevels().get(level).getGroupPrototype().clone();
            child.setId(integral ? new IntegerResultNode((Long) key) : new StringResultNode((String) key));
            child.setRank(rank);
            group.addChild(child);
            byValue.put(key, child);
        }
        else if ( ! frozen && rank > child.getRank()) {
            child.setRank(rank);
        }
        if (level < grouping.getLastLevel()) aggregate(grouping, number, child, level + 1, lid, rank);
    }

    private void collect(Group group, int lid, double rank) {
        for (AggregationResult result : group.getAggregationResults()) {
            if (result instanceof CountAggregationResult count) count.setCount(count.getCount() + 1);
            else if (result instanceof HitsAggregationResult hits && hits.getHits().size() < hits.getMaxHits())
                hits.addHit(new FS4Hit(0, index.globalId(lid), rank, distributionKey));
        }
    }

    /** Groups from an earlier pass (frozen levels) are found again by their id. */
    private void indexExisting(Group group) {
        for (Group child : group.getChildren()) {
            ResultNode id = child.getId();
            Object key = id instanceof IntegerResultNode integer ? (Object) integer.getInteger() : id.getString();
            children.computeIfAbsent(group, g -> new HashMap<>()).put(key, child);
            indexExisting(child);
        }
    }

    private static String stringValue(Attribute attribute, int lid) {
        Object value = attribute.value(lid);
        return value == null ? "" : (String) value;
    }

    private static void sortById(Group group) {
        group.sortChildrenById();
        for (Group child : group.getChildren()) sortById(child);
    }

    private static void check(Group group) {
        for (AggregationResult result : group.getAggregationResults()) {
            if (result.getClass() != CountAggregationResult.class && result.getClass() != HitsAggregationResult.class)
                throw new UnsupportedFeatureException("Grouping aggregator " + result.getClass().getSimpleName() + " is not supported by this content engine: only count() and summary()");
        }
        for (ExpressionNode orderBy : group.getOrderByExpressions()) {
            if ( ! (orderBy instanceof AggregationRefNode))
                throw new UnsupportedFeatureException("Grouping order by " + orderBy + " is not supported by this content engine: only by outputs");
        }
        for (Group child : group.getChildren()) check(child);
    }

}
