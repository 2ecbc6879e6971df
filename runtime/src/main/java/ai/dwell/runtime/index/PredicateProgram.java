package ai.dwell.runtime.index;

import com.yahoo.document.predicate.BooleanPredicate;
import com.yahoo.document.predicate.Conjunction;
import com.yahoo.document.predicate.Disjunction;
import com.yahoo.document.predicate.FeatureRange;
import com.yahoo.document.predicate.FeatureSet;
import com.yahoo.document.predicate.Negation;
import com.yahoo.document.predicate.Predicate;
import com.yahoo.document.predicate.PredicateHash;
import com.yahoo.document.predicate.RangePartition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One document's predicate (Vespa's {@link Predicate} tree, as the indexing script's optimize_predicate left it)
 * compiled into a flat postfix program over feature hashes, so that a query evaluates it without walking objects
 * or hashing strings: for every subquery at once, as a 64-bit bitmap (bit i set: the predicate holds for the
 * features of subquery i). Features are hashed as Vespa hashes them ({@link PredicateHash} of "key=value"); a range
 * leaf keeps its key's hash and its inclusive bounds (open ends as Long.MIN_VALUE and Long.MAX_VALUE).
 */
public final class PredicateProgram {

    static final int TRUE = 1, FALSE = 2, SET = 3, RANGE = 4, NOT = 5, AND = 6, OR = 7;

    private final int[] ops;    // (code << 24) | operand count
    private final long[] args;  // the hashes of SET, the key hash, from and to of RANGE, in program order
    private final long[] postingKeys; // distinct, sorted
    private final int depth;    // the stack this needs

    PredicateProgram(int[] ops, long[] args, long[] postingKeys) {
        this.ops = ops;
        this.args = args;
        this.postingKeys = postingKeys;
        this.depth = depthOf(ops);
        if (argsOf(ops) != args.length)
            throw new IllegalStateException("Predicate program of " + args.length + " arguments needs " + argsOf(ops));
    }

    /** Compiles a predicate; fails naming a node type this does not evaluate (feature conjunctions). */
    public static PredicateProgram compile(Predicate predicate) {
        Builder builder = new Builder();
        builder.add(predicate);
        return new PredicateProgram(builder.ops.stream().mapToInt(Integer::intValue).toArray(),
                                    builder.args.stream().mapToLong(Long::longValue).toArray(),
                                    distinct(builder.postingKeys.stream().mapToLong(Long::longValue).toArray()));
    }

    /**
     * The hashes a range feature's value is looked up under, besides its key's: the labels of the aligned blocks of
     * arity^k values holding it (k = 1, 2, ...: "key=start-end") and of its edge block ("key=start"), as Vespa's range
     * partitions label them (proton's PredicateRangeTermExpander, for a value of 0 or more). A negative value has none: the
     * documents with negative range partitions are posted under their key.
     */
    static long[] rangeValueKeys(String key, long value, int arity) {
        if (value < 0) return new long[0];
        List<Long> keys = new ArrayList<>();
        keys.add(PredicateHash.hash64(key + "=" + value / arity * arity));
        for (long size = arity; ; size *= arity) {
            long start = value / size * size;
            if (start > Long.MAX_VALUE - (size - 1)) break;
            keys.add(PredicateHash.hash64(key + "=" + start + "-" + (start + size - 1)));
            if (size > Long.MAX_VALUE / arity) break;
        }
        return keys.stream().mapToLong(Long::longValue).toArray();
    }

    /** The hash of a feature "key=value", as postings and queries key it. */
    public static long featureHash(String key, String value) { return PredicateHash.hash64(key + "=" + value); }

    /** The hash of a range key, as postings and queries key it. */
    public static long rangeKeyHash(String key) { return PredicateHash.hash64(key); }

    /**
     * The bitmap of the subqueries for which the predicate holds under the query's features. The stack must
     * hold {@link #depth()} values.
     */
    public long evaluate(PredicateAssignment query, long[] stack) {
        int top = 0, arg = 0;
        for (int op : ops) {
            int count = op & 0xFFFFFF;
            switch (op >>> 24) {
                case TRUE -> stack[top++] = -1L;
                case FALSE -> stack[top++] = 0L;
                case SET -> {
                    long bits = 0;
                    for (int i = 0; i < count; i++) bits |= query.featureBits(args[arg++]);
                    stack[top++] = bits;
                }
                case RANGE -> {
                    stack[top++] = query.rangeBits(args[arg], args[arg + 1], args[arg + 2]);
                    arg += 3;
                }
                case NOT -> stack[top - 1] = ~stack[top - 1];
                case AND -> {
                    long bits = -1L;
                    for (int i = 0; i < count; i++) bits &= stack[--top];
                    stack[top++] = bits;
                }
                case OR -> {
                    long bits = 0;
                    for (int i = 0; i < count; i++) bits |= stack[--top];
                    stack[top++] = bits;
                }
                default -> throw new IllegalStateException("Predicate op " + (op >>> 24));
            }
        }
        return stack[0];
    }

    /** The stack {@link #evaluate} needs. */
    public int depth() { return depth; }

    /**
     * The hashes a document's postings are kept under (distinct): of its set features; of the labels of a range's
     * partitions (the blocks of values optimize_predicate partitioned it into with the field's arity), where those are
     * all of values 0 or more; else of the range's key.
     */
    long[] postingKeys() { return postingKeys; }

    private static long[] distinct(long[] keys) {
        long[] sorted = keys.clone();
        Arrays.sort(sorted);
        int size = 0;
        for (int i = 0; i < sorted.length; i++)
            if (size == 0 || sorted[size - 1] != sorted[i]) sorted[size++] = sorted[i];
        return Arrays.copyOf(sorted, size);
    }

    int[] ops() { return ops; }
    long[] args() { return args; }

    private static int argsOf(int[] ops) {
        int count = 0;
        for (int op : ops) {
            if (op >>> 24 == SET) count += op & 0xFFFFFF;
            else if (op >>> 24 == RANGE) count += 3;
        }
        return count;
    }

    private static int depthOf(int[] ops) {
        int top = 0, max = 1;
        for (int op : ops) {
            int code = op >>> 24;
            if (code < TRUE || code > OR) throw new IllegalStateException("Predicate op " + code);
            if (code == AND || code == OR) top = top - (op & 0xFFFFFF) + 1;
            else if (code != NOT) top++;
            if (top < 1) throw new IllegalStateException("Predicate program takes more values than it has");
            max = Math.max(max, top);
        }
        if (top != 1) throw new IllegalStateException("Predicate program leaves " + top + " values");
        return max;
    }

    private static final class Builder {

        final List<Integer> ops = new ArrayList<>();
        final List<Long> args = new ArrayList<>();
        final List<Long> postingKeys = new ArrayList<>();

        void add(Predicate predicate) {
            if (predicate instanceof BooleanPredicate b) ops.add((b.getValue() ? TRUE : FALSE) << 24);
            else if (predicate instanceof FeatureSet set) {
                for (String value : set.getValues()) args.add(featureHash(set.getKey(), value));
                for (String value : set.getValues()) postingKeys.add(featureHash(set.getKey(), value));
                ops.add(SET << 24 | set.getValues().size());
            }
            else if (predicate instanceof FeatureRange range) {
                args.add(rangeKeyHash(range.getKey()));
                args.add(range.getFromInclusive() == null ? Long.MIN_VALUE : range.getFromInclusive());
                args.add(range.getToInclusive() == null ? Long.MAX_VALUE : range.getToInclusive());
                postRange(range);
                ops.add(RANGE << 24);
            }
            else if (predicate instanceof Negation negation) {
                add(negation.getOperand());
                ops.add(NOT << 24);
            }
            else if (predicate instanceof Conjunction conjunction) operator(AND, conjunction.getOperands());
            else if (predicate instanceof Disjunction disjunction) operator(OR, disjunction.getOperands());
            else throw new IllegalArgumentException("Predicate node " + predicate.getClass().getSimpleName() + " (" + predicate +
                                                    ") is not supported by this content engine");
        }

        private void postRange(FeatureRange range) {
            List<RangePartition> partitions = new ArrayList<>(range.getPartitions());
            partitions.addAll(range.getEdgePartitions());
            String negative = range.getKey() + "=-";
            boolean labelled = ! partitions.isEmpty() && partitions.stream().noneMatch(partition -> partition.getLabel().startsWith(negative));
            if ( ! labelled) postingKeys.add(rangeKeyHash(range.getKey()));
            else for (RangePartition partition : partitions) postingKeys.add(PredicateHash.hash64(partition.getLabel()));
        }

        private void operator(int code, List<Predicate> operands) {
            for (Predicate operand : operands) add(operand);
            ops.add(code << 24 | operands.size());
        }

    }

}
