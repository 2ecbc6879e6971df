package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.DocumentIndex;
import com.yahoo.searchlib.aggregation.Group;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.searchlib.aggregation.GroupingLevel;
import com.yahoo.searchlib.expression.ExpressionNode;
import com.yahoo.searchlib.expression.FixedWidthBucketFunctionNode;
import com.yahoo.searchlib.expression.RangeBucketPreDefFunctionNode;

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
 * go below a level only up to the last level.
 *
 * A level groups by an expression over single-value attributes (GroupValues: arithmetic, math, time, string
 * functions, map lookups, cat and md5), by its fixedwidth buckets or by predefined buckets (GroupClassifier), or by a
 * multi-value attribute, one group per element (proton's MultiValueGrouper), binding the attribute's struct to the
 * element for its filter, its aggregates and the levels below; a group's outputs are count() (of documents, or of
 * the groups below it), summary(), sum, avg, min, max, xor and stddev of such expressions (AggregatorPlan), each
 * written as the partial result the container merges; groups are ordered by relevance or by expressions over their
 * aggregates; a level's filter keeps documents out of its groups (GroupFilter). Anything else fails naming it,
 * before any document is grouped.
 *
 * Groups are created for every value seen and pruned to each level's precision by their order afterwards; this
 * gives the groups and aggregates proton gives whether or not it may stop creating groups early (ordered by
 * relevance, it keeps the first precision groups met in rank order: the same groups).
 */
public final class GroupingRunner {

    /** What this runner keeps for one group: its children by key and the accumulators of its aggregates. */
    private static final class GroupState {
        final Map<Object, Group> children = new HashMap<>();
        Accumulator[] accumulators;
    }

    /** One grouping request compiled: a classifier per level, the aggregators of the root and of each level. */
    private record Plan(GroupClassifier[] classifiers, LeafValues.Element[] elements, GroupFilter[] filters, AggregatorPlan[] aggregators) {}

    private final List<Grouping> groupings;
    private final List<Plan> plans = new ArrayList<>();
    private final Map<Group, GroupState> states = new IdentityHashMap<>();

    public GroupingRunner(List<Grouping> groupings, DocumentIndex index, int distributionKey) {
        this.groupings = groupings;
        for (Grouping grouping : groupings) {
            GroupValues compiler = new GroupValues(index); // a level's binding of a struct holds for its grouping
            List<GroupingLevel> levels = grouping.getLevels();
            GroupClassifier[] classifiers = new GroupClassifier[levels.size()];
            LeafValues.Element[] elements = new LeafValues.Element[levels.size()];
            GroupFilter[] filters = new GroupFilter[levels.size()];
            AggregatorPlan[] aggregators = new AggregatorPlan[levels.size() + 1];
            aggregators[0] = new AggregatorPlan(grouping.getRoot(), compiler, index, distributionKey);
            for (int level = 0; level < levels.size(); level++) { // as proton wires them: classify, bind, filter, collect
                GroupingLevel spec = levels.get(level);
                classifiers[level] = classifier(spec.getExpression(), compiler);
                if (classifiers[level].value() instanceof LeafValues.Element element && element.iterated()) elements[level] = element;
                if (spec.getFilter() != null) filters[level] = GroupFilter.compile(spec.getFilter(), compiler);
                aggregators[level + 1] = new AggregatorPlan(spec.getGroupPrototype(), compiler, index, distributionKey);
            }
            Plan plan = new Plan(classifiers, elements, filters, aggregators);
            plans.add(plan);
            indexExisting(grouping.getRoot(), plan, 0);
        }
    }

    private static GroupClassifier classifier(ExpressionNode expression, GroupValues compiler) {
        GroupClassifier classifier = buckets(expression, compiler);
        if (classifier == null) return GroupClassifier.of(compiler.compileLevel(expression));
        return classifier;
    }

    /** The classifier of a bucket function, else null. */
    static GroupClassifier buckets(ExpressionNode expression, GroupValues compiler) {
        if (expression instanceof FixedWidthBucketFunctionNode fixedWidth)
            return GroupClassifier.fixedWidth(compiler.compile(fixedWidth.getArg(0)), fixedWidth.getWidth());
        if (expression instanceof RangeBucketPreDefFunctionNode predefined)
            return GroupClassifier.predefined(compiler.compile(predefined.getArg(0)), predefined.getBucketList());
        return null;
    }

    /** Groups one matched document (in rank order, best first). */
    public void add(int lid, double rank, long position) {
        for (int i = 0; i < groupings.size(); i++) {
            Grouping grouping = groupings.get(i);
            if (grouping.getTopN() >= 0 && position >= grouping.getTopN()) continue;
            aggregate(grouping, plans.get(i), grouping.getRoot(), 0, lid, rank);
        }
    }

    /** The groupings with their results, pruned and ordered as proton returns them. */
    public List<Grouping> finish() {
        for (GroupState state : states.values()) {
            if (state.accumulators == null) continue;
            for (Accumulator accumulator : state.accumulators) accumulator.write();
        }
        for (int i = 0; i < groupings.size(); i++) prepare(groupings.get(i).getRoot(), plans.get(i), 0);
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

    private void aggregate(Grouping grouping, Plan plan, Group group, int level, int lid, double rank) {
        GroupState state = states.computeIfAbsent(group, g -> new GroupState());
        if (level >= grouping.getFirstLevel()) {
            if (state.accumulators == null) state.accumulators = plan.aggregators()[level].bind(group);
            for (Accumulator accumulator : state.accumulators) accumulator.add(lid, rank);
        }
        if (level >= grouping.getLevels().size()) return;
        LeafValues.Element element = plan.elements()[level];
        if (element == null) {
            group(grouping, plan, state, group, level, lid, rank);
            return;
        }
        for (int i = 0, count = element.count(lid); i < count; i++) { // one group per element, as proton's MultiValueGrouper
            element.select(i);
            group(grouping, plan, state, group, level, lid, rank);
        }
    }

    /** Puts the document (at its current element of a multi-value level) into its group of the level, and below. */
    private void group(Grouping grouping, Plan plan, GroupState state, Group group, int level, int lid, double rank) {
        GroupFilter filter = plan.filters()[level];
        if (filter != null && ! filter.allow(lid, rank)) return;
        boolean frozen = level < grouping.getFirstLevel();
        GroupClassifier classifier = plan.classifiers()[level];
        Object key = classifier.key(lid, rank);
        Group child = state.children.get(key);
        if (child == null) {
            if (frozen) return;
            child = grouping.getLevels().get(level).getGroupPrototype().clone();
            child.setId(classifier.id(key));
            child.setRank(rank);
            group.addChild(child);
            state.children.put(key, child);
        }
        else if ( ! frozen && rank > child.getRank()) {
            child.setRank(rank);
        }
        if (level < grouping.getLastLevel()) aggregate(grouping, plan, child, level + 1, lid, rank);
    }

    private static void prepare(Group group, Plan plan, int level) {
        plan.aggregators()[level].prepare(group);
        for (Group child : group.getChildren()) prepare(child, plan, level + 1);
    }

    /** Groups from an earlier pass (frozen levels) are found again by their id. */
    private void indexExisting(Group group, Plan plan, int level) {
        if (level >= plan.classifiers().length) return;
        for (Group child : group.getChildren()) {
            states.computeIfAbsent(group, g -> new GroupState()).children.put(plan.classifiers()[level].keyOf(child.getId()), child);
            indexExisting(child, plan, level + 1);
        }
    }

    private static void sortById(Group group) {
        group.sortChildrenById();
        for (Group child : group.getChildren()) sortById(child);
    }

}
