package ai.dwell.runtime.rank;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A rank feature name split into its parts: name(arguments).output, e.g. onnx(dwell_nn).score. */
record FeatureName(String name, List<String> arguments, String output) {

    private static final Pattern FORM = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)(?:\\((.*)\\))?(?:\\.([A-Za-z0-9_.]+))?");

    static FeatureName parse(String feature) {
        Matcher matcher = FORM.matcher(feature.trim());
        if ( ! matcher.matches()) throw new UnsupportedFeatureException("Can not parse feature name '" + feature + "'");
        List<String> arguments = matcher.group(2) == null ? List.of()
                : split(matcher.group(2)).stream().map(String::trim).map(FeatureName::unquote).toList();
        return new FeatureName(matcher.group(1), arguments, matcher.group(3));
    }

    String argument() {
        if (arguments.size() != 1) throw new UnsupportedFeatureException("Feature " + this + " takes one argument");
        return arguments.get(0);
    }

    /** The arguments, split at the commas outside parentheses and quotes (foreach's feature argument has its own). */
    private static List<String> split(String arguments) {
        List<String> parts = new ArrayList<>();
        int depth = 0, start = 0;
        boolean quoted = false;
        for (int i = 0; i < arguments.length(); i++) {
            char c = arguments.charAt(i);
            if (c == '"') quoted = ! quoted;
            else if (quoted) continue;
            else if (c == '(' || c == '[' || c == '{') depth++;
            else if (c == ')' || c == ']' || c == '}') depth--;
            else if (c == ',' && depth == 0) {
                parts.add(arguments.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(arguments.substring(start));
        return parts;
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    @Override public String toString() {
        return name + (arguments.isEmpty() ? "" : "(" + String.join(",", arguments) + ")") + (output == null ? "" : "." + output);
    }

}
