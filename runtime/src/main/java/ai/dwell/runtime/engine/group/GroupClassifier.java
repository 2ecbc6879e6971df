package ai.dwell.runtime.engine.group;

import com.yahoo.searchlib.expression.FloatBucketResultNode;
import com.yahoo.searchlib.expression.FloatBucketResultNodeVector;
import com.yahoo.searchlib.expression.FloatResultNode;
import com.yahoo.searchlib.expression.IntegerBucketResultNode;
import com.yahoo.searchlib.expression.IntegerBucketResultNodeVector;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.expression.RawResultNode;
import com.yahoo.searchlib.expression.ResultNode;
import com.yahoo.searchlib.expression.ResultNodeVector;
import com.yahoo.searchlib.expression.StringBucketResultNode;
import com.yahoo.searchlib.expression.StringBucketResultNodeVector;
import com.yahoo.searchlib.expression.StringResultNode;
import ai.dwell.runtime.rank.UnsupportedFeatureException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Puts a document into its group of one level: the key of the group (equal for documents of the same group) and
 * the group's id as proton labels it, from the level's expression: its value (integer, float or string), a
 * fixedwidth bucket, or a predefined bucket. The key is an object per document (a boxed value or a bucket).
 */
abstract class GroupClassifier {

    private final GroupValue value;

    GroupClassifier(GroupValue value) { this.value = value; }

    /** The value this classifies by (of a bucket function, its argument). */
    GroupValue value() { return value; }

    /**
     * The hash of the document's group id, as proton's ResultNode hash() of it, which count() of groups (its
     * HyperLogLog sketch) counts: an integer (an integer bucket's lower bound) itself, a float (a float bucket's lower
     * bound) by its bits, a string by the xor of its UTF-8 bytes as little-endian 64-bit words, a string bucket 0.
     */
    long hash(int lid, double rank) { return hashOf(id(key(lid, rank))); }

    static long hashOf(ResultNode id) {
        if (id instanceof IntegerResultNode integer) return integer.getInteger();
        if (id instanceof FloatResultNode floating) return Double.doubleToRawLongBits(floating.getFloat());
        if (id instanceof StringResultNode string) return hashOf(string.getString());
        if (id instanceof RawResultNode raw) return hashOf(raw.getRaw());
        if (id instanceof IntegerBucketResultNode bucket) return bucket.getFrom();
        if (id instanceof FloatBucketResultNode bucket) return Double.doubleToRawLongBits(bucket.getFrom());
        if (id instanceof StringBucketResultNode) return 0;
        throw new IllegalStateException("Unexpected group id " + id.getClass().getSimpleName());
    }

    static long hashOf(String string) { return hashOf(string.getBytes(StandardCharsets.UTF_8)); }

    static long hashOf(byte[] bytes) {
        long hash = 0;
        for (int i = 0; i < bytes.length; i++) hash ^= (bytes[i] & 0xffL) << (8 * (i % 8));
        return hash;
    }

    /** The key of the document's group. */
    abstract Object key(int lid, double rank);

    /** The id of the group of this key, as proton's result node of the level's expression labels it. */
    abstract ResultNode id(Object key);

    /** The key of a group that has this id (a group of an earlier pass, sent back by the container). */
    abstract Object keyOf(ResultNode id);

    /** Groups by the value itself. */
    static GroupClassifier of(GroupValue value) {
        return switch (value.type()) {
            case INTEGER -> new GroupClassifier(value) {
                @Override long hash(int lid, double rank) { return value.integer(lid, rank); }
                @Override Object key(int lid, double rank) { return value.integer(lid, rank); }
                @Override ResultNode id(Object key) { return new IntegerResultNode((Long) key); }
                @Override Object keyOf(ResultNode id) { return id.getInteger(); }
            };
            case FLOAT -> new GroupClassifier(value) {
                @Override long hash(int lid, double rank) { return Double.doubleToRawLongBits(value.floating(lid, rank)); }
                @Override Object key(int lid, double rank) { return value.floating(lid, rank); }
                @Override ResultNode id(Object key) { return new FloatResultNode((Double) key); }
                @Override Object keyOf(ResultNode id) { return id.getFloat(); }
            };
            case RAW -> new GroupClassifier(value) {
                @Override long hash(int lid, double rank) { return hashOf(value.raw(lid, rank)); }
                @Override Object key(int lid, double rank) { return ByteBuffer.wrap(value.raw(lid, rank)); }
                @Override ResultNode id(Object key) { return new RawResultNode(((ByteBuffer) key).array()); }
                @Override Object keyOf(ResultNode id) { return ByteBuffer.wrap(id.getRaw()); }
            };
            case STRING -> new GroupClassifier(value) {
                @Override long hash(int lid, double rank) { return hashOf(value.string(lid, rank)); }
                @Override Object key(int lid, double rank) { return value.string(lid, rank); }
                @Override ResultNode id(Object key) { return new StringResultNode((String) key); }
                @Override Object keyOf(ResultNode id) { return id.getString(); }
            };
        };
    }

    private record IntegerRange(long from, long to) {}
    private record FloatRange(double from, double to) {}

    /**
     * fixedwidth(value, width): as proton's FixedWidthBucketFunctionNode, an integer value (with the width as an
     * integer) falls in [n/width*width, +width), a negative one in [(n+1)/width*width - width, (n+1)/width*width),
     * saturating at the ends of the long range; a float value in [floor(n/width)*width, +width). A width not above
     * 0 gives the bucket [n, n).
     */
    static GroupClassifier fixedWidth(GroupValue value, ResultNode width) {
        if (value.type() == GroupValue.Type.STRING || value.type() == GroupValue.Type.RAW)
            throw new UnsupportedFeatureException("Grouping function fixedwidth of a " + value.type().name().toLowerCase() + " value is not supported by this content engine");
        if (value.type() == GroupValue.Type.INTEGER) {
            long w = width.getInteger();
            return new GroupClassifier(value) {
                @Override Object key(int lid, double rank) {
                    long n = value.integer(lid, rank);
                    long from = n, to = n;
                    if (w > 0) {
                        if (n >= 0) {
                            from = (n / w) * w;
                            to = from >= Long.MAX_VALUE - w ? Long.MAX_VALUE : from + w;
                        }
                        else {
                            to = ((n + 1) / w) * w;
                            from = to <= Long.MIN_VALUE + w ? Long.MIN_VALUE : to - w;
                        }
                    }
                    return new IntegerRange(from, to);
                }
                @Override ResultNode id(Object key) {
                    IntegerRange range = (IntegerRange) key;
                    return new IntegerBucketResultNode(range.from(), range.to());
                }
                @Override Object keyOf(ResultNode id) {
                    IntegerBucketResultNode bucket = (IntegerBucketResultNode) id;
                    return new IntegerRange(bucket.getFrom(), bucket.getTo());
                }
            };
        }
        double w = width.getFloat();
        return new GroupClassifier(value) {
            @Override Object key(int lid, double rank) {
                double n = value.floating(lid, rank);
                if ( ! (w > 0)) return new FloatRange(n, n);
                double quotient = Math.floor(n / w);
                return new FloatRange(quotient * w, (quotient + 1) * w);
            }
            @Override ResultNode id(Object key) {
                FloatRange range = (FloatRange) key;
                return new FloatBucketResultNode(range.from(), range.to());
            }
            @Override Object keyOf(ResultNode id) {
                FloatBucketResultNode bucket = (FloatBucketResultNode) id;
                return new FloatRange(bucket.getFrom(), bucket.getTo());
            }
        };
    }

    /**
     * predefined(value, bucket(...), ...): the first bucket holding the value (from inclusive, to exclusive,
     * compared as the buckets' type: integers, floats or strings), as proton's RangeBucketPreDefFunctionNode; a
     * value in no bucket goes to the type's null bucket, as there.
     */
    static GroupClassifier predefined(GroupValue value, ResultNodeVector buckets) {
        if (value.type() == GroupValue.Type.RAW)
            throw new UnsupportedFeatureException("Grouping predefined buckets of a raw value (cat, md5) are not supported by this content engine");
        if (buckets instanceof IntegerBucketResultNodeVector integers) {
            List<IntegerBucketResultNode> list = integers.getVector();
            long[] from = list.stream().mapToLong(IntegerBucketResultNode::getFrom).toArray();
            long[] to = list.stream().mapToLong(IntegerBucketResultNode::getTo).toArray();
            return new Predefined(value, list) {
                @Override Object key(int lid, double rank) {
                    long n = value.integer(lid, rank);
                    for (int i = 0; i < from.length; i++) if (n >= from[i] && n < to[i]) return i;
                    return -1;
                }
                @Override ResultNode nullBucket() { return new IntegerBucketResultNode(); }
            };
        }
        if (buckets instanceof FloatBucketResultNodeVector floats) {
            List<FloatBucketResultNode> list = floats.getVector();
            double[] from = list.stream().mapToDouble(FloatBucketResultNode::getFrom).toArray();
            double[] to = list.stream().mapToDouble(FloatBucketResultNode::getTo).toArray();
            return new Predefined(value, list) {
                @Override Object key(int lid, double rank) {
                    double n = value.floating(lid, rank);
                    for (int i = 0; i < from.length; i++) if (n >= from[i] && n < to[i]) return i;
                    return -1;
                }
                @Override ResultNode nullBucket() { return new FloatBucketResultNode(); }
            };
        }
        if (buckets instanceof StringBucketResultNodeVector strings) {
            List<StringBucketResultNode> list = strings.getVector();
            ResultNode[] from = list.stream().map(b -> (ResultNode) Members.get(b, "from")).toArray(ResultNode[]::new);
            ResultNode[] to = list.stream().map(b -> (ResultNode) Members.get(b, "to")).toArray(ResultNode[]::new);
            return new Predefined(value, list) {
                @Override Object key(int lid, double rank) {
                    StringResultNode n = new StringResultNode(value.string(lid, rank));
                    for (int i = 0; i < from.length; i++) if (from[i].compareTo(n) <= 0 && to[i].compareTo(n) > 0) return i;
                    return -1;
                }
                @Override ResultNode nullBucket() { return new StringBucketResultNode(); }
            };
        }
        throw new UnsupportedFeatureException("Grouping predefined buckets of " + buckets.getClass().getSimpleName() + " are not supported by this content engine");
    }

    private abstract static class Predefined extends GroupClassifier {
        private final List<? extends ResultNode> buckets;
        Predefined(GroupValue value, List<? extends ResultNode> buckets) { super(value); this.buckets = buckets; }
        abstract ResultNode nullBucket();
        @Override ResultNode id(Object key) {
            int bucket = (Integer) key;
            return bucket < 0 ? nullBucket() : (ResultNode) buckets.get(bucket).clone();
        }
        @Override Object keyOf(ResultNode id) {
            for (int i = 0; i < buckets.size(); i++) if (buckets.get(i).compareTo(id) == 0) return i;
            return -1;
        }
    }

}
