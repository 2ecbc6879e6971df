package ai.dwell.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The dependencies between the packages of a source tree, read from the package and import lines
 * of its .java files and the fully qualified names in their code (comments and string literals left out).
 * Each package is a node of its own, apart from its sub-packages.
 */
final class PackageGraph {

    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(?:static\\s+)?([\\w.]+)", Pattern.MULTILINE);
    private static final Pattern COMMENTS_AND_STRINGS =
            Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'", Pattern.DOTALL);

    /** A source file's package and every name it refers to: imports and qualified names in code. */
    record Source(Path file, String packageName, Set<String> references) {}

    private final String root;
    private final List<Source> sources;
    private final Set<String> packages = new TreeSet<>();
    private final Map<String, Map<String, Set<String>>> edges = new TreeMap<>();

    /** Builds the graph of the packages under the given root package (e.g. "ai.dwell.runtime"). */
    PackageGraph(String root, List<Source> sources) {
        this.root = root;
        this.sources = sources;
        for (Source source : sources)
            if (inRoot(source.packageName())) packages.add(source.packageName());
        for (Source source : sources) {
            if ( ! inRoot(source.packageName())) continue;
            edges.computeIfAbsent(source.packageName(), __ -> new TreeMap<>());
            for (String reference : source.references())
                packageOf(reference).filter(target -> ! target.equals(source.packageName()))
                                    .ifPresent(target -> edges.get(source.packageName())
                                                              .computeIfAbsent(target, __ -> new TreeSet<>())
                                                              .add(source.file().getFileName().toString()));
        }
    }

    /** Reads every .java file under the given source directory. */
    static PackageGraph read(String root, Path sourceDirectory) {
        try (Stream<Path> files = Files.walk(sourceDirectory)) {
            return new PackageGraph(root, files.filter(file -> file.toString().endsWith(".java")).map(PackageGraph::parse).toList());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Source parse(Path file) {
        try {
            return parse(file, Files.readString(file));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Source parse(Path file, String text) {
        String code = COMMENTS_AND_STRINGS.matcher(text).replaceAll(" ");
        Matcher packageLine = PACKAGE.matcher(code);
        String packageName = packageLine.find() ? packageLine.group(1) : "";
        Set<String> references = new TreeSet<>();
        for (Matcher imports = IMPORT.matcher(code); imports.find(); ) references.add(imports.group(1));
        String body = PACKAGE.matcher(IMPORT.matcher(code).replaceAll(" ")).replaceAll(" ");
        for (Matcher names = Pattern.compile("\\b[a-z]\\w*(?:\\.\\w+)+").matcher(body); names.find(); )
            references.add(names.group());
        return new Source(file, packageName, references);
    }

    Set<String> packages() { return packages; }

    /** The packages each package depends on, with the files that make it depend on each. */
    Map<String, Map<String, Set<String>>> edges() { return edges; }

    /** The sources of the given package and its sub-packages. */
    List<Source> sourcesUnder(String packageName) {
        return sources.stream().filter(source -> source.packageName().equals(packageName)
                                                 || source.packageName().startsWith(packageName + ".")).toList();
    }

    /** Returns a cycle of package dependencies as a path that ends where it begins, or empty if there is none. */
    Optional<List<String>> cycle() {
        Map<String, Integer> state = new HashMap<>(); // 1: on the current path, 2: done
        for (String start : packages) {
            List<String> path = new ArrayList<>();
            Optional<List<String>> cycle = cycleFrom(start, state, path);
            if (cycle.isPresent()) return cycle;
        }
        return Optional.empty();
    }

    private Optional<List<String>> cycleFrom(String node, Map<String, Integer> state, List<String> path) {
        Integer seen = state.get(node);
        if (seen != null && seen == 2) return Optional.empty();
        if (seen != null && seen == 1) {
            List<String> cycle = new ArrayList<>(path.subList(path.indexOf(node), path.size()));
            cycle.add(node);
            return Optional.of(cycle);
        }
        state.put(node, 1);
        path.add(node);
        for (String next : edges.getOrDefault(node, Map.of()).keySet()) {
            Optional<List<String>> cycle = cycleFrom(next, state, path);
            if (cycle.isPresent()) return cycle;
        }
        path.remove(path.size() - 1);
        state.put(node, 2);
        return Optional.empty();
    }

    /** The longest package of this graph that the name is in, or (for a class name) is. */
    private Optional<String> packageOf(String name) {
        if ( ! inRoot(name)) return Optional.empty();
        for (String candidate = name; ; candidate = candidate.substring(0, candidate.lastIndexOf('.'))) {
            if (packages.contains(candidate)) return Optional.of(candidate);
            if (candidate.lastIndexOf('.') < 0) return Optional.empty();
        }
    }

    private boolean inRoot(String name) {
        return name.equals(root) || name.startsWith(root + ".");
    }

    /** Formats a path of packages, with the files that make each step. */
    String describe(List<String> path) {
        StringBuilder description = new StringBuilder(path.get(0));
        for (int i = 1; i < path.size(); i++)
            description.append(" -> ").append(path.get(i))
                       .append(" (").append(String.join(", ", edges.get(path.get(i - 1)).get(path.get(i)))).append(")");
        return description.toString();
    }

}
