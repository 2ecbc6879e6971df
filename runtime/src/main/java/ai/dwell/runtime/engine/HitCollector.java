package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.group.GroupingRunner;
import ai.dwell.runtime.engine.sort.RankedHit;
import ai.dwell.runtime.engine.sort.SortedHits;
import ai.dwell.runtime.index.DocumentIndex;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Collects the ranked hits of each index a search covers the way the query wants them: all of them into its
 * grouping, if it groups; then all of them in sort-spec order, if it sorts, else the best offset + hits of each
 * by relevance; and returns the requested page.
 */
final class HitCollector {

    private final int offset;
    private final int hits;
    private final SortedHits sorted; // null: by relevance
    private final GroupingRunner grouping; // null: no grouping
    private final List<RankedHit> best = new ArrayList<>();

    HitCollector(int offset, int hits, SortedHits sorted, GroupingRunner grouping) {
        this.offset = offset;
        this.hits = hits;
        this.sorted = sorted;
        this.grouping = grouping;
    }

    /** How many of the best hits of an index must be ranked in order: all, when grouping or sorting sees every match. */
    int wanted() {
        return grouping != null || sorted != null ? Integer.MAX_VALUE : (int) Math.min(Integer.MAX_VALUE, end());
    }

    void add(DocumentIndex index, Ranker.Ranked ranked) {
        if (grouping != null) for (int i = 0; i < ranked.size(); i++) grouping.add(ranked.lids()[i], ranked.relevance()[i], i);
        if (sorted != null) {
            sorted.add(index, ranked.lids(), ranked.relevance());
            return;
        }
        int returned = (int) Math.min(ranked.size(), end());
        for (int i = 0; i < returned; i++) best.add(new RankedHit(index.name(), ranked.lids()[i], ranked.relevance()[i], null));
    }

    /** The groupings, filled, if the query groups. */
    Optional<GroupingRunner> grouping() { return Optional.ofNullable(grouping); }

    /** The hits from offset to offset + hits, in order. */
    List<RankedHit> page() {
        List<RankedHit> all;
        if (sorted != null) all = sorted.first((int) Math.min(Integer.MAX_VALUE, end()));
        else (all = best).sort(Comparator.comparingDouble(RankedHit::relevance).reversed());
        int from = Math.min(offset, all.size()), to = (int) Math.min(end(), all.size());
        return all.subList(from, to);
    }

    private long end() { return (long) offset + hits; }

}
