package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.MultiValueAttribute;

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


    /** The index of the element a multi-value level is grouping the document by (proton's CurrentIndex). */
    static final class ElementIndex {
        int value;
    }

    /**
     * The element at the current index of a multi-value attribute (an array or weighted set; of a map or an array of
     * structs, one struct field); past the document's last element the type's undefined value ("" for strings).
     */
    static final class Element extends GroupValue {
        private final MultiValueAttribute attribute;
        private final ElementIndex index;
        private final long undefined;
        private final boolean iterated;
        Element(MultiValueAttribute attribute, ElementIndex index, Type type, long undefined, boolean iterated) {
            super(type);
            this.attribute = attribute;
            this.index = index;
            this.undefined = undefined;
            this.iterated = iterated;
        }
        /** Whether this is the multi-value attribute a level groups by (which sets the index), not one bound to it. */
        boolean iterated() { return iterated; }
        /** The number of elements of the document. */
        int count(int lid) { return attribute.count(lid); }
        void select(int i) { index.value = i; }
        private Object current(int lid) {
            Object[] elements = attribute.elements(lid);
            return index.value < elements.length ? elements[index.value] : null;
        }
        @Override public long integer(int lid, double rank) {
            if (type() != Type.INTEGER) return super.integer(lid, rank);
            Object value = current(lid);
            return value == null ? undefined : (Long) value;
        }
        @Override public double floating(int lid, double rank) {
            if (type() != Type.FLOAT) return super.floating(lid, rank);
            Object value = current(lid);
            return value == null ? Double.NaN : (Double) value;
        }
        @Override public String string(int lid, double rank) {
            if (type() != Type.STRING) return super.string(lid, rank);
            Object value = current(lid);
            return value == null ? "" : (String) value;
        }
    }

    /**
     * attr{"key"}: the value attribute's element at the index of the first key element equal to the key (a constant,
     * or the document's value of a key attribute); the type's undefined value where the document has no such key.
     */
    static final class MapLookup extends GroupValue {
        private final MultiValueAttribute keys;
        private final MultiValueAttribute values;
        private final long undefined;
        private final Object key;
        private final GroupValue keySource;
        MapLookup(MultiValueAttribute keys, MultiValueAttribute values, Type type, long undefined, String key, GroupValue keySource) {
            super(type);
            this.keys = keys;
            this.values = values;
            this.undefined = undefined;
            this.keySource = keySource;
            this.key = keySource != null ? null : switch (keys.elements()) { // as proton converts the key to the key type
                case STRING -> key;
                case INTEGER -> NumberText.leadingInteger(key);
                case FLOATING -> NumberText.leadingFloat(key);
            };
        }
        private Object value(int lid, double rank) {
            Object wanted = key;
            if (keySource != null) {
                wanted = switch (keys.elements()) {
                    case STRING -> keySource.string(lid, rank);
                    case INTEGER -> keySource.integer(lid, rank);
                    case FLOATING -> keySource.floating(lid, rank);
                };
            }
            Object[] found = keys.elements(lid);
            for (int i = 0; i < found.length; i++) {
                if (found[i].equals(wanted)) {
                    Object[] elements = values.elements(lid);
                    return i < elements.length ? elements[i] : null;
                }
            }
            return null;
        }
        @Override public long integer(int lid, double rank) {
            if (type() != Type.INTEGER) return super.integer(lid, rank);
            Object value = value(lid, rank);
            return value == null ? undefined : (Long) value;
        }
        @Override public double floating(int lid, double rank) {
            if (type() != Type.FLOAT) return super.floating(lid, rank);
            Object value = value(lid, rank);
            return value == null ? Double.NaN : (Double) value;
        }
        @Override public String string(int lid, double rank) {
            if (type() != Type.STRING) return super.string(lid, rank);
            Object value = value(lid, rank);
            return value == null ? "" : (String) value;
        }
    }

}
