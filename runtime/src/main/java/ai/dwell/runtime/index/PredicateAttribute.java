package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.PredicateFieldValue;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A predicate attribute: each document's boolean constraint over query features (Vespa's predicate field), compiled
 * to a {@link PredicateProgram}, and posting lists that find the documents a query's features can satisfy.
 *
 * A document is a candidate for a query if it is posted under one of the query's feature hashes ("key=value"), under
 * the label of a partition holding one of its range values (the blocks optimize_predicate partitioned the document's
 * ranges into, with the field's arity; or under the range's key, for ranges with negative partitions), or if its
 * predicate holds without any feature (a {@code true} predicate, or one under a negation: proton's
 * zero-constraint documents). A predicate that holds for no feature it mentions holds for none, so the candidates are
 * all the documents that can match; each is then evaluated exactly, for all 64 subqueries at once. A document without
 * a value, or with {@code false}, matches nothing, as in proton.
 *
 * Ranges are evaluated by comparison, which gives the answers proton's interval encoding gives for the values it
 * accepts (the container's ValidatePredicateSearcher refuses values outside the field's bounds); the partitions only
 * choose the candidates.
 */
public final class PredicateAttribute extends Attribute {

    private static final PredicateAssignment EMPTY = new PredicateAssignment(List.of(), List.of());

    private PredicateProgram[] programs = new PredicateProgram[0];
    private final Map<Long, PostingList> postings = new HashMap<>();
    private final BitSet zeroConstraint = new BitSet();
    private int depth = 1; // the deepest program's stack
    private final int arity;

    /** A predicate attribute whose documents' ranges optimize_predicate partitioned with this arity (the field's index setting). */
    public PredicateAttribute(String name, int arity) {
        super(name);
        if (arity < 2) throw new IllegalArgumentException("Predicate field '" + name + "': arity " + arity + ", must be at least 2");
        this.arity = arity;
    }

    @Override
    public void set(int lid, FieldValue value) {
        clear(lid);
        if (value == null) return;
        if ( ! (value instanceof PredicateFieldValue predicate))
            throw new IllegalArgumentException("Attribute '" + name() + "' takes predicates, got " + value.getDataType().getName());
        if (predicate.getPredicate() == null) return;
        add(lid, PredicateProgram.compile(predicate.getPredicate()));
    }

    private void add(int lid, PredicateProgram program) {
        if (lid >= programs.length) programs = Arrays.copyOf(programs, grow(programs.length, lid));
        programs[lid] = program;
        depth = Math.max(depth, program.depth());
        for (long key : program.postingKeys()) postings.computeIfAbsent(key, k -> new PostingList()).add(lid);
        if (program.evaluate(EMPTY, new long[program.depth()]) != 0) zeroConstraint.set(lid);
    }

    @Override
    public void clear(int lid) {
        if (lid >= programs.length || programs[lid] == null) return;
        for (long key : programs[lid].postingKeys()) {
            PostingList list = postings.get(key);
            if (list == null) continue;
            list.remove(lid);
            if (list.isEmpty()) postings.remove(key);
        }
        zeroConstraint.clear(lid);
        programs[lid] = null;
    }

    /** Whether the document has a predicate. */
    public boolean hasValue(int lid) { return lid < programs.length && programs[lid] != null; }

    /** The documents among the allowed ones whose predicate holds for some subquery of the query, each with the subqueries it holds for. */
    public Hits match(PredicateAssignment query, BitSet allowed) {
        BitSet candidates = candidates(query, allowed);
        int[] lids = new int[Math.max(1, candidates.cardinality())];
        long[] subqueries = new long[lids.length];
        long[] stack = new long[depth];
        int count = 0;
        for (int lid = candidates.nextSetBit(0); lid >= 0; lid = candidates.nextSetBit(lid + 1)) {
            long bits = programs[lid].evaluate(query, stack);
            if (bits == 0) continue;
            lids[count] = lid;
            subqueries[count++] = bits;
        }
        return new Hits(lids, subqueries, count);
    }

    /**
     * The documents that may match: those posted under the query's features, its range keys and the partitions holding
     * its range values, and those whose predicate holds without any feature; among the allowed.
     */
    BitSet candidates(PredicateAssignment query, BitSet allowed) {
        BitSet candidates = (BitSet) zeroConstraint.clone();
        for (long key : query.postingKeys()) addPosted(key, candidates, allowed);
        for (PredicateAssignment.RangeFeature range : query.ranges())
            for (long key : PredicateProgram.rangeValueKeys(range.key(), range.value(), arity)) addPosted(key, candidates, allowed);
        candidates.and(allowed);
        return candidates;
    }

    private void addPosted(long key, BitSet candidates, BitSet allowed) {
        PostingList list = postings.get(key);
        if (list != null) list.orInto(candidates, allowed);
    }

    /** The documents a predicate query matched, in increasing order, and the subqueries each matched for. */
    public record Hits(int[] lids, long[] subqueries, int count) {

        public BitSet toBitSet() {
            BitSet set = new BitSet();
            for (int i = 0; i < count; i++) set.set(lids[i]);
            return set;
        }

        /** The subqueries the document matched for: 0 when it is not a hit. */
        public long subqueries(int lid) {
            int at = Arrays.binarySearch(lids, 0, count, lid);
            return at < 0 ? 0 : subqueries[at];
        }

    }

    @Override
    public double number(int lid) { return 0; } // proton's predicate attribute has no numeric value either

    @Override
    public Object value(int lid) { return null; } // summaries read the field from the document

    @Override
    public boolean matchTerm(String term, BitSet candidates, BitSet result) { return false; }

    @Override
    public void matchRange(double low, boolean lowInclusive, double high, boolean highInclusive, BitSet candidates, BitSet result) {}

    @Override
    public void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        int length = Math.min(lidLimit, programs.length), count = 0;
        for (int lid = 0; lid < length; lid++) if (programs[lid] != null) count++;
        out.writeInt(count);
        for (int lid = 0; lid < length; lid++) {
            if (programs[lid] == null) continue;
            int[] ops = programs[lid].ops();
            long[] args = programs[lid].args();
            long[] keys = programs[lid].postingKeys();
            out.writeInt(lid);
            out.writeInt(ops.length);
            out.writeInts(ops, 0, ops.length);
            out.writeInt(args.length);
            out.writeLongs(args, 0, args.length);
            out.writeInt(keys.length);
            out.writeLongs(keys, 0, keys.length);
        }
    }

    @Override
    public void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        int count = in.readLength(12);
        for (int i = 0; i < count; i++) {
            int lid = in.readInt();
            if (lid <= 0 || lid >= lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': local id out of range");
            int[] ops = new int[in.readLength(4)];
            in.readInts(ops, 0, ops.length);
            long[] args = new long[in.readLength(8)];
            in.readLongs(args, 0, args.length);
            long[] keys = new long[in.readLength(8)];
            in.readLongs(keys, 0, keys.length);
            try {
                add(lid, new PredicateProgram(ops, args, keys));
            }
            catch (IllegalStateException e) {
                throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name() + "': " + e.getMessage());
            }
        }
    }

}
