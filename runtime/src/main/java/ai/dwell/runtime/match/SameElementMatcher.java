package ai.dwell.runtime.match;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.StructFieldValues;
import ai.dwell.runtime.match.query.QueryItem;
import com.yahoo.document.Document;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * sameElement on an array of structs or a map: a document matches when one element matches every child. The
 * documents each child matches somewhere are found with the struct-field attributes (items.name, props.key); each
 * of the few documents all of them match is then read, and its elements checked one by one, the children compared
 * as the attributes compare (a string as the attribute's match mode, a number exactly or in a range).
 */
final class SameElementMatcher {

    private SameElementMatcher() {}

    static BitSet match(DocumentIndex index, QueryItem.SameElement same, Function<QueryItem, BitSet> documents, BitSet active) {
        List<String[]> paths = new ArrayList<>();
        List<Predicate<Object>> tests = new ArrayList<>();
        BitSet candidates = (BitSet) active.clone();
        for (QueryItem child : same.children()) {
            String sub;
            if (child instanceof QueryItem.Term term) sub = term.index();
            else if (child instanceof QueryItem.Range range) sub = range.index();
            else throw new UnsupportedQueryException("sameElement with " + child.getClass().getSimpleName() + " is not supported by this content engine (terms and ranges are)");
            String full = same.index() + "." + sub;
            if ( ! (index.attribute(full).orElse(null) instanceof MultiValueAttribute attribute))
                throw new UnsupportedQueryException("sameElement: '" + full + "' is not a struct-field attribute of '" + index.name() + "'");
            tests.add(test(child, attribute));
            paths.add(sub.split("\\."));
            candidates.and(documents.apply(withIndex(child, full)));
        }
        BitSet result = new BitSet();
        for (int lid = candidates.nextSetBit(0); lid >= 0; lid = candidates.nextSetBit(lid + 1))
            if (anElementMatches(index.summaryDocument(lid), same.index(), paths, tests)) result.set(lid);
        return result;
    }

    private static boolean anElementMatches(Document document, String field, List<String[]> paths, List<Predicate<Object>> tests) {
        FieldValue root = document == null ? null : document.getFieldValue(field);
        if (root == null) return false;
        boolean map = root instanceof com.yahoo.document.datatypes.MapFieldValue<?, ?>;
        List<FieldValue> keys = map ? StructFieldValues.elementsOf(root, "key") : null;
        List<FieldValue> values = StructFieldValues.elementsOf(root, map ? "value" : "");
        for (int e = 0; e < values.size(); e++) {
            boolean all = true;
            for (int c = 0; c < tests.size() && all; c++) {
                String[] path = paths.get(c);
                FieldValue value = map ? StructFieldValues.subField(path[0].equals("key") ? keys.get(e) : values.get(e), rest(path))
                                       : StructFieldValues.subField(values.get(e), path);
                all = value != null && tests.get(c).test(element(value));
            }
            if (all) return true;
        }
        return false;
    }

    private static String[] rest(String[] path) { return java.util.Arrays.copyOfRange(path, 1, path.length); }

    /** An element's value as an attribute holds it: a String, or a number. */
    private static Object element(FieldValue value) {
        return value instanceof NumericFieldValue number ? (Object) number.getNumber() : value.toString();
    }

    private static Predicate<Object> test(QueryItem child, MultiValueAttribute attribute) {
        if (child instanceof QueryItem.Range range) {
            return value -> value instanceof Number number && inRange(number.doubleValue(), range);
        }
        QueryItem.Term term = (QueryItem.Term) child;
        if (attribute.elements() == MultiValueAttribute.Elements.STRING) {
            Predicate<Object> key = attribute.key(term.word());
            return value -> value instanceof String && key.test(value);
        }
        Predicate<Object> number = attribute.key(term.word());
        return value -> value instanceof Number n && number.test(attribute.elements() == MultiValueAttribute.Elements.INTEGER ? (Object) n.longValue() : (Object) n.doubleValue());
    }

    private static boolean inRange(double v, QueryItem.Range range) {
        return (range.lowInclusive() ? v >= range.low() : v > range.low()) && (range.highInclusive() ? v <= range.high() : v < range.high());
    }

    private static QueryItem withIndex(QueryItem child, String index) {
        if (child instanceof QueryItem.Term term) return new QueryItem.Term(index, term.word(), term.type(), term.weight(), false);
        QueryItem.Range range = (QueryItem.Range) child;
        return new QueryItem.Range(index, range.low(), range.lowInclusive(), range.high(), range.highInclusive(), range.integers());
    }

}
