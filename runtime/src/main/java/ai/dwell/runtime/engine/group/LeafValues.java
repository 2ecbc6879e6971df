package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.Attribute;

/** The leaves of a grouping expression: an attribute's value, a constant, the document's relevance. */
final class LeafValues {

    private LeafValues() {}

    /** A single-value integer attribute (proton's Int64ResultNode of any integer attribute). */
    static final class IntegerAttribute extends GroupValue {
        private final Attribute attribute;
        IntegerAttribute(Attribute attribute) { super(Type.INTEGER); this.attribute = attribute; }
        @Override public long integer(int lid, double rank) { return attribute.longValue(lid); }
    }

    /** A single-value float or double attribute (proton's FloatResultNode). */
    static final class FloatAttribute extends GroupValue {
        private final Attribute attribute;
        FloatAttribute(Attribute attribute) { super(Type.FLOAT); this.attribute = attribute; }
        @Override public double floating(int lid, double rank) { return attribute.number(lid); }
    }

    /** A single-value string attribute; a document without a value has the empty string, as proton's. */
    static final class StringAttribute extends GroupValue {
        private final Attribute attribute;
        StringAttribute(Attribute attribute) { super(Type.STRING); this.attribute = attribute; }
        @Override public String string(int lid, double rank) {
            Object value = attribute.value(lid);
            return value == null ? "" : (String) value;
        }
    }

    static final class IntegerConstant extends GroupValue {
        private final long value;
        IntegerConstant(long value) { super(Type.INTEGER); this.value = value; }
        @Override public long integer(int lid, double rank) { return value; }
    }

    static final class FloatConstant extends GroupValue {
        private final double value;
        FloatConstant(double value) { super(Type.FLOAT); this.value = value; }
        @Override public double floating(int lid, double rank) { return value; }
    }

    static final class StringConstant extends GroupValue {
        private final String value;
        StringConstant(String value) { super(Type.STRING); this.value = value; }
        @Override public String string(int lid, double rank) { return value; }
    }

    /** relevance(): the document's rank score. */
    static final class Relevance extends GroupValue {
        Relevance() { super(Type.FLOAT); }
        @Override public double floating(int lid, double rank) { return rank; }
    }

}
