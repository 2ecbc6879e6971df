package ai.dwell.runtime.serve.deploy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * Unpacks an application package sent as a zip file, as `vespa deploy` sends it. Refuses entries
 * that would land outside the target directory (zip slip), oversized packages, packages of more entries
 * than any application has (a zip of many empty entries would fill the disk's inodes), and packages
 * without services.xml. A package zipped with one top directory (as `mvn package` makes
 * application.zip) is unpacked from inside that directory.
 */
public final class ApplicationArchive {

    static final long MAX_UNPACKED_BYTES = 2L << 30;
    static final int MAX_ENTRIES = 50_000;

    private ApplicationArchive() {}

    /** Unpacks the zip into the directory, which must not exist, and returns the package root. */
    public static Path unpack(byte[] zip, Path directory) {
        try {
            Files.createDirectories(directory);
            Path root = directory.toAbsolutePath().normalize();
            long total = 0;
            int entries = 0;
            try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
                for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                    if (++entries > MAX_ENTRIES)
                        throw new InvalidApplicationException("The application package has more than " + MAX_ENTRIES + " entries");
                    Path target = root.resolve(entry.getName()).normalize();
                    if ( ! target.startsWith(root) || entry.getName().startsWith("/"))
                        throw new InvalidApplicationException("Zip entry '" + entry.getName() + "' points outside the application package");
                    if (entry.isDirectory()) {
                        Files.createDirectories(target);
                        continue;
                    }
                    Files.createDirectories(target.getParent());
                    total += copy(in, target, MAX_UNPACKED_BYTES - total);
                }
            }
            catch (IOException e) {
                throw new InvalidApplicationException("Not a valid zip file: " + e.getMessage(), e);
            }
            if (entries == 0)
                throw new InvalidApplicationException("The application package is empty or not a zip file");
            return packageRoot(root);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory holding services.xml: the root, or its only subdirectory. */
    public static Path packageRoot(Path root) throws IOException {
        if (Files.exists(root.resolve("services.xml"))) return root;
        try (var children = Files.list(root)) {
            var directories = children.filter(Files::isDirectory).toList();
            if (directories.size() == 1 && Files.exists(directories.get(0).resolve("services.xml")))
                return directories.get(0);
        }
        throw new InvalidApplicationException("services.xml is missing from the application package");
    }

    private static long copy(InputStream in, Path target, long budget) throws IOException {
        long written = 0;
        byte[] buffer = new byte[1 << 16];
        try (var out = Files.newOutputStream(target)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                written += n;
                if (written > budget)
                    throw new InvalidApplicationException("The application package unpacks to more than " + MAX_UNPACKED_BYTES + " bytes");
                out.write(buffer, 0, n);
            }
        }
        return written;
    }

}
