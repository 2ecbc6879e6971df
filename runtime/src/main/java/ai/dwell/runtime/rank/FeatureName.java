package ai.dwell.runtime.rank;

import java.util.Arrays;
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
                : Arrays.stream(matcher.group(2).split(",")).map(String::trim).map(FeatureName::unquote).toList();
        return new FeatureName(matcher.group(1), arguments, matcher.group(3));
    }

    String argument() {
        if (arguments.size() != 1) throw new UnsupportedFeatureException("Feature " + this + " takes one argument");
        return arguments.get(0);
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    @Override public String toString() {
        return name + (arguments.isEmpty() ? "" : "(" + String.join(",", arguments) + ")") + (output == null ? "" : "." + output);
    }

}
