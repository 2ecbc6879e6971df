package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.Attribute;

/**
 * Sort blobs of a single-value numeric attribute, as proton's SingleNumericSortBlobWriter (default policy: the
 * value, undefined included, in the attribute's own width) and SingleNumericMissingSortBlobWriter
 * (missing(...): a prefix byte before present values, or the replacement value) write them.
 */
final class NumericSortBlobWriter implements SortBlobWriter {

    /** The C++ type of the attribute: how many bytes its blob takes and what its undefined value is. */
    enum Width {
        INT8(1), INT16(2), INT32(4), INT64(8), FLOAT(4), DOUBLE(8);
        final int bytes;
        Width(int bytes) { this.bytes = bytes; }
        boolean integral() { return this != FLOAT && this != DOUBLE; }
        /** The minimum of the type, proton's undefined value for integers. */
        long undefined() { return -(1L << (bytes * 8 - 1)); }
    }

    private final Attribute attribute;
    private final Width width;
    private final boolean ascending;
    private final SortField.MissingPolicy policy;
    private final long missingInteger;
    private final double missingNumber;

    NumericSortBlobWriter(Attribute attribute, SortField field, Width width) {
        this.attribute = attribute;
        this.width = width;
        this.ascending = field.ascending();
        this.policy = field.missingPolicy();
        boolean as = policy == SortField.MissingPolicy.AS;
        this.missingInteger = as && width.integral() ? parseInteger(field.missingValue(), field.attribute()) : 0;
        this.missingNumber = as && ! width.integral() ? parseNumber(field.missingValue(), field.attribute()) : Double.NaN;
    }

    @Override
    public void write(int lid, double relevance, SortBlobs out) {
        if (width.integral()) {
            long value = attribute.longValue(lid);
            // Our int8 and int16 attributes hold the int32 undefined value; proton's hold their own type's minimum
            boolean missing = value == width.undefined() || (width.bytes < 4 && value == Integer.MIN_VALUE);
            if (missing) value = width.undefined();
            if (writeMissing(missing, out)) return;
            out.putInteger(value, width.bytes, ascending);
        }
        else {
            double value = attribute.number(lid);
            if (writeMissing(Double.isNaN(value), out)) return;
            if (width == Width.FLOAT) out.putFloat(Double.isNaN(value) ? Float.NaN : (float) value, ascending);
            else out.putDouble(Double.isNaN(value) ? Double.NaN : value, ascending);
        }
    }

    /** Writes the blob of a missing value or the prefix of a present one; returns whether the blob is complete. */
    private boolean writeMissing(boolean missing, SortBlobs out) {
        switch (policy) {
            case FIRST -> { out.put(missing ? 0 : 1); return missing; }
            case LAST -> { out.put(missing ? 1 : 0); return missing; }
            case AS -> {
                if ( ! missing) return false;
                if (width.integral()) out.putInteger(missingInteger, width.bytes, ascending);
                else if (width == Width.FLOAT) out.putFloat((float) missingNumber, ascending);
                else out.putDouble(missingNumber, ascending);
                return true;
            }
            default -> { return false; }
        }
    }

    private static long parseInteger(String value, String attributeName) {
        try { return Long.parseLong(value.trim()); }
        catch (NumberFormatException e) { throw notANumber(value, attributeName); }
    }

    private static double parseNumber(String value, String attributeName) {
        try { return Double.parseDouble(value.trim()); }
        catch (NumberFormatException e) { throw notANumber(value, attributeName); }
    }

    private static IllegalArgumentException notANumber(String value, String attributeName) {
        return new IllegalArgumentException("Missing value '" + value + "' for sorting on '" + attributeName + "' is not a number of its type");
    }

}
