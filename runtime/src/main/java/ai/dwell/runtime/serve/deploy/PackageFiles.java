package ai.dwell.runtime.serve.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Copying and removing a package directory: the runtime's sessions and working copies, and tests' copies. */
public final class PackageFiles {

    private PackageFiles() {}

    /** Copies the directory source, with everything in it, to target. */
    public static void copy(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(to);
                else Files.copy(file, to);
            }
        }
    }

    /** Makes target a copy of source whose files are hard links to source's (copies where a link cannot be made). */
    public static void link(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(to);
                else {
                    try { Files.createLink(to, file); }
                    catch (UnsupportedOperationException | IOException e) { Files.copy(file, to); }
                }
            }
        }
    }

    /** Removes the directory with everything in it, if it exists. */
    public static void deleteRecursively(Path directory) throws IOException {
        if ( ! Files.exists(directory)) return;
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator)
                Files.delete(file);
        }
    }

}
