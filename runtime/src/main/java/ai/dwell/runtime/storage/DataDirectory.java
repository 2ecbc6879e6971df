package ai.dwell.runtime.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of a document store, all directly in one directory, which is locked for the lifetime of this:
 * <ul>
 *   <li>{@code log-<first serial>.seg}: transaction log segments,</li>
 *   <li>{@code snapshot-<covered serial>.snap}: snapshots, written as {@code .tmp} first,</li>
 *   <li>{@code store.lock}: held by the process that has the store open.</li>
 * </ul>
 */
final class DataDirectory implements AutoCloseable {

    private static final Logger log = Logger.getLogger(DataDirectory.class.getName());
    private static final Pattern SEGMENT = Pattern.compile("log-(\\d{20})\\.seg");
    private static final Pattern SNAPSHOT = Pattern.compile("snapshot-(\\d{20})\\.snap");
    private static final String TEMPORARY_SUFFIX = ".tmp";

    private final Path path;
    private final FileChannel lockChannel;
    private final FileLock lock;

    DataDirectory(Path path) throws IOException {
        this.path = path;
        Files.createDirectories(path);
        this.lockChannel = FileChannel.open(path.resolve("store.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        this.lock = tryLock(lockChannel, path);
        deleteTemporaryFiles();
    }

    Path path() { return path; }

    Path segment(long firstSerial) { return path.resolve(String.format("log-%020d.seg", firstSerial)); }

    Path snapshot(long serial) { return path.resolve(String.format("snapshot-%020d.snap", serial)); }

    static Path temporary(Path file) { return file.resolveSibling(file.getFileName() + TEMPORARY_SUFFIX); }

    /** First serial numbers of the log segments, ascending. */
    List<Long> segments() { return serials(SEGMENT); }

    /** Serial numbers covered by the snapshots, ascending. */
    List<Long> snapshots() { return serials(SNAPSHOT); }

    /** Makes creations, renames and deletions of files in the directory durable. */
    void sync() throws IOException {
        try (FileChannel directory = FileChannel.open(path, StandardOpenOption.READ)) {
            directory.force(true);
        }
    }

    /** Deletes what a snapshot covering the given serial makes obsolete: older snapshots and the segments it covers. */
    void deleteCoveredBy(long snapshotSerial) throws IOException {
        for (long serial : snapshots())
            if (serial < snapshotSerial) Files.delete(snapshot(serial));
        for (long firstSerial : segments())
            if (firstSerial <= snapshotSerial) Files.delete(segment(firstSerial));
        sync();
    }

    private List<Long> serials(Pattern pattern) {
        try (Stream<Path> files = Files.list(path)) {
            return files.map(file -> pattern.matcher(file.getFileName().toString()))
                        .filter(Matcher::matches)
                        .map(matcher -> Long.parseLong(matcher.group(1)))
                        .sorted()
                        .toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void deleteTemporaryFiles() throws IOException {
        try (Stream<Path> files = Files.list(path)) {
            for (Path file : files.filter(file -> file.getFileName().toString().endsWith(TEMPORARY_SUFFIX)).toList()) {
                log.info("Deleting " + file + ", left by an interrupted snapshot");
                Files.delete(file);
            }
        }
    }

    private static FileLock tryLock(FileChannel channel, Path path) throws IOException {
        try {
            FileLock lock = channel.tryLock();
            if (lock != null) return lock;
        }
        catch (OverlappingFileLockException e) {
            // held by this process
        }
        channel.close();
        throw new IllegalStateException("Document store in " + path + " is already open");
    }

    @Override
    public void close() throws IOException {
        lock.release();
        lockChannel.close();
    }

}
