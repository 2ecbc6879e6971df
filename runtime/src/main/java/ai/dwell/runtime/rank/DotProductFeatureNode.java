package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.MultiValueAttribute;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * dotProduct(name, vector), as searchlib's DotProductExecutor: the dot product of the document's weighted set (its
 * keys' weights) or numeric array (its elements by index) and the query vector, the rank property
 * dotProduct.vector: {@code {key:weight,...}} for a weighted set; {@code [v0 v1 ...]} or {@code {index:value,...}}
 * for an array. 0 without the property.
 */
final class DotProductFeatureNode extends ScalarNode {

    private final MultiValueAttribute attribute;
    private final Predicate<Object>[] keys; // a weighted set's query keys
    private final double[] keyWeights;
    private final double[] vector; // an array's query vector

    @SuppressWarnings("unchecked")
    DotProductFeatureNode(MultiValueAttribute attribute, String property) {
        this.attribute = attribute;
        String value = property.trim();
        if (attribute.collection() == MultiValueAttribute.Collection.WEIGHTED_SET) {
            List<String[]> pairs = pairs(value);
            keys = new Predicate[pairs.size()];
            keyWeights = new double[pairs.size()];
            for (int i = 0; i < pairs.size(); i++) {
                keys[i] = attribute.key(pairs.get(i)[0]);
                keyWeights[i] = Double.parseDouble(pairs.get(i)[1]);
            }
            vector = null;
        }
        else {
            if (attribute.elements() == MultiValueAttribute.Elements.STRING)
                throw new UnsupportedFeatureException("dotProduct(" + attribute.name() + ", ...): an array of strings has no dot product; use a weighted set");
            keys = null;
            keyWeights = null;
            vector = array(value);
        }
    }

    @Override
    double number(int lid) {
        double sum = 0;
        if (keys != null) {
            for (int i = 0; i < keys.length; i++) sum += keyWeights[i] * attribute.weight(lid, keys[i]);
            return sum;
        }
        Object[] elements = attribute.elements(lid);
        for (int i = 0, n = Math.min(elements.length, vector.length); i < n; i++) sum += ((Number) elements[i]).doubleValue() * vector[i];
        return sum;
    }

    /** key:weight pairs of {...} or (...), split at each key's last colon. */
    private static List<String[]> pairs(String value) {
        List<String[]> pairs = new ArrayList<>();
        if (value.length() < 2) return pairs;
        for (String pair : value.substring(1, value.length() - 1).split(",")) {
            if (pair.isBlank()) continue;
            int colon = pair.lastIndexOf(':');
            if (colon < 0) throw new IllegalArgumentException("dotProduct query vector '" + value + "': expected key:weight, got '" + pair + "'");
            pairs.add(new String[] { unquote(pair.substring(0, colon).trim()), pair.substring(colon + 1).trim() });
        }
        return pairs;
    }

    private static String unquote(String key) {
        return key.length() >= 2 && (key.startsWith("'") && key.endsWith("'") || key.startsWith("\"") && key.endsWith("\""))
               ? key.substring(1, key.length() - 1) : key;
    }

    /** [v0 v1 ...] (spaces or commas), or {index:value,...}. */
    private static double[] array(String value) {
        if (value.startsWith("{")) {
            List<String[]> pairs = pairs(value);
            int size = 0;
            for (String[] pair : pairs) size = Math.max(size, Integer.parseInt(pair[0]) + 1);
            double[] result = new double[size];
            for (String[] pair : pairs) result[Integer.parseInt(pair[0])] = Double.parseDouble(pair[1]);
            return result;
        }
        String inner = value.startsWith("[") || value.startsWith("(") ? value.substring(1, value.length() - 1) : value;
        return java.util.Arrays.stream(inner.trim().split("[\\s,]+")).filter(s -> ! s.isEmpty()).mapToDouble(Double::parseDouble).toArray();
    }

}
