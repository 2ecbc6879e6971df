package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.DocumentIndex;
import com.yahoo.searchlib.aggregation.AverageAggregationResult;
import com.yahoo.searchlib.aggregation.CountAggregationResult;
import com.yahoo.searchlib.aggregation.ExpressionCountAggregationResult;
import com.yahoo.searchlib.aggregation.hll.HyperLogLog;
import com.yahoo.searchlib.aggregation.hll.HyperLogLogEstimator;
import com.yahoo.searchlib.aggregation.hll.NormalSketch;
import com.yahoo.searchlib.aggregation.hll.SparseSketch;
import com.yahoo.searchlib.aggregation.FS4Hit;
import com.yahoo.searchlib.aggregation.HitsAggregationResult;
import com.yahoo.searchlib.aggregation.MaxAggregationResult;
import com.yahoo.searchlib.aggregation.MinAggregationResult;
import com.yahoo.searchlib.aggregation.QuantileAggregationResult;
import com.yahoo.searchlib.aggregation.StandardDeviationAggregationResult;
import com.yahoo.searchlib.aggregation.SumAggregationResult;
import com.yahoo.searchlib.aggregation.XorAggregationResult;
import com.yahoo.searchlib.expression.FloatResultNode;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.expression.RawResultNode;
import com.yahoo.searchlib.expression.SingleResultNode;
import com.yahoo.searchlib.expression.StringResultNode;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One aggregator of one group: collects the group's documents and writes its partial result into the group's
 * searchlib AggregationResult, in the form the container merges (Group.merge) and proton sends: a sum, min or max in
 * the type of its expression (an integer expression sums as a long, anything else as a double; a min or max of
 * strings compares them), an average as its float sum and count, a standard deviation as count, sum and sum of
 * squares, xor of the values as integers.
 */
abstract class Accumulator {

    abstract void add(int lid, double rank);

    /** Writes what was collected into the result (once, after the last document). */
    abstract void write();

    /** Ends a document whose elements were added one by one (see {@link Flattened}). */
    void endDocument() {}

    /**
     * An aggregator of a whole multi-value attribute: each of the document's elements is added to the aggregator,
     * as proton's aggregators flatten a ResultNodeVector (sum, min, max and xor element by element, in array order;
     * avg and stddev also count every element).
     */
    static final class Flattened extends Accumulator {
        private final Accumulator inner;
        private final LeafValues.Element elements;
        Flattened(Accumulator inner, LeafValues.Element elements) { this.inner = inner; this.elements = elements; }
        @Override void add(int lid, double rank) {
            for (int i = 0, n = elements.count(lid); i < n; i++) {
                elements.select(i);
                inner.add(lid, rank);
            }
            inner.endDocument();
        }
        @Override void write() { inner.write(); }
    }

    static final class Count extends Accumulator {
        private final CountAggregationResult result;
        private long count;
        Count(CountAggregationResult result) { this.result = result; }
        @Override void add(int lid, double rank) { count++; }
        @Override void write() { result.setCount(result.getCount() + count); }
    }

    /** summary(): the first hits in rank order, up to the aggregator's max. */
    static final class Hits extends Accumulator {
        private final HitsAggregationResult result;
        private final DocumentIndex index;
        private final int distributionKey;
        Hits(HitsAggregationResult result, DocumentIndex index, int distributionKey) {
            this.result = result;
            this.index = index;
            this.distributionKey = distributionKey;
        }
        @Override void add(int lid, double rank) {
            if (result.getHits().size() < result.getMaxHits())
                result.addHit(new FS4Hit(0, index.globalId(lid), rank, distributionKey));
        }
        @Override void write() {}
    }

    static final class Sum extends Accumulator {
        private final SumAggregationResult result;
        private final GroupValue value;
        private final boolean integral;
        private long integerSum;
        private double floatSum;
        Sum(SumAggregationResult result, GroupValue value) {
            this.result = result;
            this.value = value;
            this.integral = value.type() == GroupValue.Type.INTEGER;
        }
        @Override void add(int lid, double rank) {
            if (integral) integerSum += value.integer(lid, rank);
            else floatSum += value.floating(lid, rank);
        }
        @Override void write() {
            result.setSum(integral ? new IntegerResultNode(integerSum) : new FloatResultNode(floatSum));
        }
    }

    /** min() or max(): starts at the type's greatest (least) value, as proton's setMax (setMin); raw values compare as memcmp. */
    static final class Extreme extends Accumulator {
        private final MinAggregationResult min;
        private final MaxAggregationResult max;
        private final GroupValue value;
        private long integer;
        private double floating;
        private String string;
        private byte[] raw;
        Extreme(MinAggregationResult min, MaxAggregationResult max, GroupValue value) {
            this.min = min;
            this.max = max;
            this.value = value;
            integer = min != null ? Long.MAX_VALUE : Long.MIN_VALUE;
            floating = min != null ? Double.MAX_VALUE : -Double.MAX_VALUE;
        }
        @Override void add(int lid, double rank) {
            switch (value.type()) {
                case INTEGER -> {
                    long v = value.integer(lid, rank);
                    integer = min != null ? Math.min(integer, v) : Math.max(integer, v);
                }
                case FLOAT -> {
                    double v = value.floating(lid, rank);
                    if (min != null ? v < floating : v > floating) floating = v;
                }
                case RAW -> {
                    byte[] v = value.raw(lid, rank);
                    if (raw == null || (min != null ? Arrays.compareUnsigned(v, raw) < 0 : Arrays.compareUnsigned(v, raw) > 0)) raw = v;
                }
                case STRING -> {
                    String v = value.string(lid, rank);
                    if (string == null || (min != null ? compare(v, string) < 0 : compare(v, string) > 0)) string = v;
                }
            }
        }
        /** Strings compare as proton compares them, by their UTF-8 bytes, which is by code point. */
        private static int compare(String a, String b) {
            int i = 0, j = 0;
            while (i < a.length() && j < b.length()) {
                int ca = a.codePointAt(i), cb = b.codePointAt(j);
                if (ca != cb) return Integer.compare(ca, cb);
                i += Character.charCount(ca);
                j += Character.charCount(cb);
            }
            return Integer.compare(a.length() - i, b.length() - j);
        }
        @Override void write() {
            SingleResultNode node = switch (value.type()) {
                case INTEGER -> new IntegerResultNode(integer);
                case FLOAT -> new FloatResultNode(floating);
                case STRING -> string == null ? start(GroupValue.Type.STRING, min != null) : new StringResultNode(string);
                case RAW -> raw == null ? start(GroupValue.Type.RAW, min != null) : new RawResultNode(raw);
            };
            if (min != null) min.setMin(node);
            else max.setMax(node);
        }

        /** The value a min (max) starts from, as proton's setMax (setMin) of the type: for strings "\xff" (""). */
        static SingleResultNode start(GroupValue.Type type, boolean forMin) {
            return switch (type) {
                case INTEGER -> new IntegerResultNode(forMin ? Long.MAX_VALUE : Long.MIN_VALUE);
                case FLOAT -> new FloatResultNode(forMin ? Double.MAX_VALUE : -Double.MAX_VALUE);
                case STRING -> forMin ? GreatestString.create() : new StringResultNode("");
                case RAW -> new RawResultNode(forMin ? new byte[] { (byte) 0xff } : new byte[0]); // proton's RawResultNode setMax, setMin
            };
        }
    }

    /** The string of the one byte 0xff, proton's greatest string (not valid UTF-8, so only searchlib can make it). */
    private static final class GreatestString extends StringResultNode {
        static StringResultNode create() { return ofUncheckedUtf8Array(new byte[] { (byte) 0xff }); }
    }

    /**
     * avg(): a float sum and a count. Of an integer array's elements (flattened), as proton's flattenSum: per
     * document the float sum read as a long, the elements added as longs, the result back to a float.
     */
    static final class Average extends Accumulator {
        private final AverageAggregationResult result;
        private final GroupValue value;
        private final boolean integerElements;
        private double sum;
        private long count;
        private long documentSum;
        Average(AverageAggregationResult result, GroupValue value, boolean flattened) {
            this.result = result;
            this.value = value;
            this.integerElements = flattened && value.type() == GroupValue.Type.INTEGER;
        }
        @Override void add(int lid, double rank) {
            if (integerElements) documentSum += value.integer(lid, rank);
            else sum += value.floating(lid, rank);
            count++;
        }
        @Override void endDocument() {
            if ( ! integerElements) return;
            sum = (double) (GroupValue.roundToLong(sum) + documentSum);
            documentSum = 0;
        }
        @Override void write() {
            result.setSum(new FloatResultNode(sum));
            result.setCount(count);
        }
    }

    static final class Xor extends Accumulator {
        private final XorAggregationResult result;
        private final GroupValue value;
        private long xor;
        Xor(XorAggregationResult result, GroupValue value) { this.result = result; this.value = value; }
        @Override void add(int lid, double rank) { xor ^= value.integer(lid, rank); }
        @Override void write() { result.setXor(xor); }
    }

    /**
     * stddev(): count, float sum and float sum of squares. Of an integer array's elements (flattened), as proton's
     * flattenSum and flattenSumOfSquared: per document each float sum read as a long, the elements (and their
     * squares, as longs) added as longs, the results back to floats.
     */
    static final class StandardDeviation extends Accumulator {
        private final StandardDeviationAggregationResult result;
        private final GroupValue value;
        private final boolean integerElements;
        private long count;
        private double sum;
        private double sumOfSquares;
        private long documentSum;
        private long documentSquares;
        StandardDeviation(StandardDeviationAggregationResult result, GroupValue value, boolean flattened) {
            this.result = result;
            this.value = value;
            this.integerElements = flattened && value.type() == GroupValue.Type.INTEGER;
        }
        @Override void add(int lid, double rank) {
            count++;
            if (integerElements) {
                long v = value.integer(lid, rank);
                documentSum += v;
                documentSquares += v * v;
                return;
            }
            double v = value.floating(lid, rank);
            sum += v;
            sumOfSquares += v * v;
        }
        @Override void endDocument() {
            if ( ! integerElements) return;
            sum = (double) (GroupValue.roundToLong(sum) + documentSum);
            sumOfSquares = (double) (GroupValue.roundToLong(sumOfSquares) + documentSquares);
            documentSum = documentSquares = 0;
        }
        @Override void write() { // the result was sent empty (0, 0, 0); it has no setters
            result.merge(new StandardDeviationAggregationResult(count, sum, sumOfSquares));
        }
    }

    /**
     * quantiles: as proton's QuantileAggregationResult, each document's value (as a float) into the result's KLL sketch
     * (datasketches' KllDoublesSketch, k 200, the sketch the container merges over the nodes and reads the quantiles
     * from; exact while a node's group holds fewer values than the sketch keeps, a KLL approximation beyond).
     */
    static final class Quantiles extends Accumulator {
        private final QuantileAggregationResult result;
        private final GroupValue value;
        Quantiles(QuantileAggregationResult result, GroupValue value) { this.result = result; this.value = value; }
        @Override void add(int lid, double rank) { result.updateSketch(value.floating(lid, rank)); }
        @Override void write() {}
    }

    /**
     * count() of groups: as proton's ExpressionCountAggregationResult, each document's group id of the level below
     * hashed (its ResultNode hash, then XXH32 of those 8 bytes with seed 42) into a HyperLogLog sketch, sparse (the
     * distinct hashes, so exact but for hash collisions) up to 256 hashes and a normal sketch beyond, which the
     * container merges over the nodes (searchlib's SketchMerger) and estimates the count from.
     */
    static final class GroupCount extends Accumulator {
        private static final XXHash32 xxHash32 = XXHashFactory.fastestJavaInstance().hash32();
        private final ExpressionCountAggregationResult result;
        private final GroupClassifier groupIds;
        private final byte[] bytes = new byte[8];
        private final ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        private SparseSketch sparse = new SparseSketch();
        private NormalSketch normal;
        GroupCount(ExpressionCountAggregationResult result, GroupClassifier groupIds) { this.result = result; this.groupIds = groupIds; }
        @Override void add(int lid, double rank) {
            buffer.putLong(0, groupIds.hash(lid, rank));
            int hash = xxHash32.hash(bytes, 0, 8, 42);
            if (normal == null && sparse.size() > HyperLogLog.SPARSE_SKETCH_CONVERSION_THRESHOLD) { // as proton's, before the next
                normal = new NormalSketch();
                normal.aggregate(sparse.data());
                sparse = null;
            }
            if (normal != null) normal.aggregate(hash);
            else sparse.aggregate(hash);
        }
        @Override void write() {
            result.merge(new ExpressionCountAggregationResult(normal != null ? normal : sparse, new HyperLogLogEstimator()));
        }
    }

}
