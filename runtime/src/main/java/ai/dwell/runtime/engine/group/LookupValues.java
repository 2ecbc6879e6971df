package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.MultiValueAttribute;

/**
 * The grouping functions that read into a value rather than compute with it: zcurve.x and zcurve.y (a coordinate of
 * a z-order code, as a position field's _zcurve attribute holds it), interpolatedlookup (where a value falls in a
 * numeric array) and array.at (an array's element at an index), as proton's ZCurveFunctionNode, InterpolatedLookup
 * and ArrayAtLookup compute them. None allocates per document.
 */
final class LookupValues {

    private LookupValues() {}

    /**
     * zcurve.x(a) / zcurve.y(a): the x (the code's even bits) or y (its odd bits) of the value as a 64-bit z-order
     * code, as a signed 32-bit integer (proton's ZCurve decode, into an integer result).
     */
    static final class ZCurveCoordinate extends GroupValue {
        private final GroupValue code;
        private final boolean y;
        ZCurveCoordinate(GroupValue code, boolean y) {
            super(Type.INTEGER);
            this.code = code;
            this.y = y;
        }
        @Override public long integer(int lid, double rank) {
            long z = code.integer(lid, rank);
            return y ? evenBits(z >>> 1) : evenBits(z);
        }

        /** The 32 even bits of z (bit 2i is bit i of the result), as a signed int. */
        static int evenBits(long z) {
            long v = z & 0x5555555555555555L;
            v = (v | (v >>> 1)) & 0x3333333333333333L;
            v = (v | (v >>> 2)) & 0x0f0f0f0f0f0f0f0fL;
            v = (v | (v >>> 4)) & 0x00ff00ff00ff00ffL;
            v = (v | (v >>> 8)) & 0x0000ffff0000ffffL;
            v = (v | (v >>> 16)) & 0x00000000ffffffffL;
            return (int) v;
        }
    }

    /**
     * interpolatedlookup(array, x): a float, where x falls in the document's numeric array (read as doubles, in
     * array order): 0 for an empty array or x below the first element; else i + (x - a[i]) / (a[i+1] - a[i]) for
     * the first i + 1 whose element is above x; the last index where none is (as proton's simple_interpolate, which
     * assumes the array ascending and does not check it).
     */
    static final class InterpolatedLookup extends GroupValue {
        private final MultiValueAttribute array;
        private final GroupValue lookup;
        InterpolatedLookup(MultiValueAttribute array, GroupValue lookup) {
            super(Type.FLOAT);
            this.array = array;
            this.lookup = lookup;
        }
        @Override public double floating(int lid, double rank) {
            double x = lookup.floating(lid, rank);
            Object[] elements = array.elements(lid);
            if (elements.length == 0 || x < element(elements, 0)) return 0;
            for (int i = 1; i < elements.length; i++) {
                double above = element(elements, i);
                if (x < above) {
                    double below = element(elements, i - 1);
                    return (i - 1) + (x - below) / (above - below);
                }
            }
            return elements.length - 1;
        }
        private static double element(Object[] elements, int i) { return ((Number) elements[i]).doubleValue(); }
    }

    /**
     * array.at(array, i): the array's element at index i (the index expression's value as an integer); past the
     * end, and at a negative index (proton reads it as an unsigned index), the last element; of an empty array the
     * type's zero value (0, 0.0 or ""), as proton's AttributeNode reads an array at its current index.
     */
    static final class ArrayAt extends GroupValue {
        private final MultiValueAttribute array;
        private final GroupValue index;
        ArrayAt(MultiValueAttribute array, Type type, GroupValue index) {
            super(type);
            this.array = array;
            this.index = index;
        }
        private Object element(int lid, double rank) {
            Object[] elements = array.elements(lid);
            if (elements.length == 0) return null;
            long i = index.integer(lid, rank);
            return i >= 0 && i < elements.length ? elements[(int) i] : elements[elements.length - 1];
        }
        @Override public long integer(int lid, double rank) {
            if (type() != Type.INTEGER) return super.integer(lid, rank);
            Object value = element(lid, rank);
            return value == null ? 0 : (Long) value;
        }
        @Override public double floating(int lid, double rank) {
            if (type() != Type.FLOAT) return super.floating(lid, rank);
            Object value = element(lid, rank);
            return value == null ? 0 : (Double) value;
        }
        @Override public String string(int lid, double rank) {
            if (type() != Type.STRING) return super.string(lid, rank);
            Object value = element(lid, rank);
            return value == null ? "" : (String) value;
        }
    }

}
