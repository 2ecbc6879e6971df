package ai.dwell.runtime.index;

import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.MapFieldValue;
import com.yahoo.document.datatypes.StructuredFieldValue;

import java.util.ArrayList;
import java.util.List;

/**
 * The values of a struct-field attribute ({@code items.name} of an {@code array<item>}, {@code props.key} and
 * {@code props.value} of a {@code map<string,string>}, {@code m.value.f} of a map to structs), read from the document:
 * each element's value of the sub-field, in element order (elements without it are left out), as an array, which is
 * what proton's struct-field attribute holds.
 */
public final class StructFieldValues {

    private StructFieldValues() {}

    /** Whether the attribute is a struct field (its name a path into a field). */
    public static boolean isStructField(String attribute) { return attribute.indexOf('.') > 0; }

    /** The field of the document the attribute reads. */
    public static String rootField(String attribute) { return attribute.substring(0, attribute.indexOf('.')); }

    /** The attribute's values in the document, null when it has none. */
    public static FieldValue of(Document document, String attribute) {
        String[] path = attribute.split("\\.");
        FieldValue root = document.getFieldValue(path[0]);
        if (root == null) return null;
        List<FieldValue> values = new ArrayList<>();
        int from = root instanceof MapFieldValue<?, ?> ? 2 : 1; // a map's path names key or value first
        for (FieldValue element : elements(root, path[1], attribute)) collect(element, path, from, values, attribute);
        if (values.isEmpty()) return null;
        Array<FieldValue> array = new Array<>(DataType.getArray(values.get(0).getDataType()));
        values.forEach(array::add);
        return array;
    }

    /** The elements of a multi-value field: an array's elements, or a map's keys or values as the path's next part says. */
    static List<FieldValue> elements(FieldValue field, String next, String attribute) {
        List<FieldValue> elements = new ArrayList<>();
        if (field instanceof Array<?> array) {
            for (Object element : array.getValues()) elements.add((FieldValue) element);
        }
        else if (field instanceof MapFieldValue<?, ?> map) {
            boolean keys = next.equals("key");
            if ( ! keys && ! next.equals("value")) throw new IllegalArgumentException("Attribute '" + attribute + "': a map's struct fields are key and value");
            for (var entry : map.entrySet()) elements.add((FieldValue) (keys ? entry.getKey() : entry.getValue()));
        }
        else throw new IllegalArgumentException("Attribute '" + attribute + "': '" + attribute.substring(0, attribute.indexOf('.')) + "' is not an array or map");
        return elements;
    }

    /** The elements of an array (next is ignored), or a map's keys ("key") or values ("value"). */
    public static List<FieldValue> elementsOf(FieldValue field, String next) {
        if (field instanceof MapFieldValue<?, ?>) return elements(field, next, "sameElement");
        return elements(field, "", "sameElement");
    }

    /** Follows the rest of the path from an element into its sub-fields. */
    private static void collect(FieldValue value, String[] path, int from, List<FieldValue> into, String attribute) {
        for (int i = from; i < path.length && value != null; i++) {
            if ( ! (value instanceof StructuredFieldValue struct))
                throw new IllegalArgumentException("Attribute '" + attribute + "': '" + path[i] + "' of a value that is not a struct");
            value = struct.getFieldValue(path[i]);
        }
        if (value != null) into.add(value);
    }

    /** An element's value at the rest of the path (for sameElement), null when it has none. */
    public static FieldValue subField(FieldValue element, String[] rest) {
        FieldValue value = element;
        for (String part : rest) {
            if ( ! (value instanceof StructuredFieldValue struct)) return null;
            value = struct.getFieldValue(part);
            if (value == null) return null;
        }
        return value;
    }

}
