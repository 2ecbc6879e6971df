package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.MultiValueAttribute;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Sort blobs of an array or weighted set attribute, as proton's NumericSortBlobWriter and StringSortBlobWriter write
 * them for a multi-value attribute: the document's lowest element ascending, its highest descending (NaN elements are
 * left out), in the attribute's own width (strings: their UTF-8 bytes and a terminating 0, compared as unsigned bytes,
 * lowercased and folded for lowercase(x)). A document without elements is missing: by default, and with
 * missing(x,last), a 1 byte after which present values are prefixed by a 0, so it sorts last in either order; with
 * missing(x,first) the other way around; with missing(x,as,v) v as the value (not lowercased).
 */
final class MultiValueSortBlobWriter implements SortBlobWriter {

    private final MultiValueAttribute attribute;
    private final boolean ascending;
    private final NumericSortBlobWriter.Width width; // null for strings
    private final Integer valuePrefix; // the byte before a present value, or null (missing(x,as,v))
    private final byte[] missingBlob; // as written, inverted for descending where it is a value
    private final Function<String, byte[]> encoder;
    private final Map<String, byte[]> bytes = new HashMap<>();

    MultiValueSortBlobWriter(MultiValueAttribute attribute, SortField field, NumericSortBlobWriter.Width width) {
        this.attribute = attribute;
        this.ascending = field.ascending();
        this.width = width;
        this.encoder = field.lowercase() ? value -> terminated(LowercaseFolder.fold(value)) : MultiValueSortBlobWriter::terminated;
        switch (field.missingPolicy()) {
            case FIRST -> { missingBlob = new byte[] { 0 }; valuePrefix = 1; }
            case AS -> { missingBlob = missingValue(field); valuePrefix = null; }
            default -> { missingBlob = new byte[] { 1 }; valuePrefix = 0; } // DEFAULT and LAST
        }
    }

    @Override
    public void write(int lid, double relevance, SortBlobs out) {
        Object[] elements = attribute.elements(lid);
        if (width == null) writeString(elements, out);
        else if (width.integral()) writeInteger(elements, out);
        else writeFloating(elements, out);
    }

    private void writeInteger(Object[] elements, SortBlobs out) {
        boolean any = false;
        long best = 0;
        for (Object element : elements) {
            long value = ((Number) element).longValue();
            if ( ! any || (ascending ? value < best : value > best)) best = value;
            any = true;
        }
        if ( ! writePrefix(any, out)) return;
        out.putInteger(best, width.bytes, ascending);
    }

    private void writeFloating(Object[] elements, SortBlobs out) {
        boolean any = false;
        double best = 0;
        for (Object element : elements) {
            double value = width == NumericSortBlobWriter.Width.FLOAT ? (float) ((Number) element).doubleValue() : ((Number) element).doubleValue();
            if (Double.isNaN(value)) continue;
            if ( ! any || (ascending ? value < best : value > best)) best = value;
            any = true;
        }
        if ( ! writePrefix(any, out)) return;
        if (width == NumericSortBlobWriter.Width.FLOAT) out.putFloat((float) best, ascending);
        else out.putDouble(best, ascending);
    }

    private void writeString(Object[] elements, SortBlobs out) {
        byte[] best = null;
        for (Object element : elements) {
            byte[] value = bytes.computeIfAbsent((String) element, encoder);
            if (best == null || (ascending ? Arrays.compareUnsigned(value, best) < 0 : Arrays.compareUnsigned(value, best) > 0)) best = value;
        }
        if ( ! writePrefix(best != null, out)) return;
        out.put(best, ascending);
    }

    /** Writes the missing blob (returning false) or the present value's prefix (returning true). */
    private boolean writePrefix(boolean present, SortBlobs out) {
        if ( ! present) {
            for (byte b : missingBlob) out.put(b & 0xff);
            return false;
        }
        if (valuePrefix != null) out.put(valuePrefix);
        return true;
    }

    /** missing(x,as,v): v serialized as a value of the attribute, in the order's form. */
    private byte[] missingValue(SortField field) {
        SortBlobs blob = new SortBlobs();
        String value = field.missingValue();
        try {
            if (width == null) blob.put(terminated(value), ascending);
            else if (width.integral()) blob.putInteger(Long.parseLong(value.trim()), width.bytes, ascending);
            else if (width == NumericSortBlobWriter.Width.FLOAT) blob.putFloat(Float.parseFloat(value.trim()), ascending);
            else blob.putDouble(Double.parseDouble(value.trim()), ascending);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Missing value '" + value + "' for sorting on '" + field.attribute() + "' is not a number of its type");
        }
        blob.endBlob();
        return blob.blob(0);
    }

    private static byte[] terminated(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return Arrays.copyOf(utf8, utf8.length + 1);
    }

}
