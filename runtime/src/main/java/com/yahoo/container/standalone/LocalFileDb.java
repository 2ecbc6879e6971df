package com.yahoo.container.standalone;

import com.yahoo.config.FileReference;
import com.yahoo.config.application.api.FileRegistry;
import com.yahoo.filedistribution.fileacquirer.FileAcquirer;
import net.jpountz.lz4.LZ4FrameOutputStream;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's own class in the place of the standalone container's file registry and acquirer of the same name
 * (earlier on the class path, as VespaDocumentAccess; written for the runtime, with the constructor and interfaces the
 * standalone container calls): the files of the application directory. A reference it registered is its file; one it
 * did not register that names a file or directory of the application directory is that (a path config's directory, the ranking expressions a rank profile
 * distributes as files, "./name.lz4", which Vespa's model registers with a registry that keeps no file; the runtime
 * writes them into the served package, see ai.dwell.runtime.serve.deploy.LargeRankExpressions); any other is returned
 * as the path it names, as Vespa's standalone container does.
 */
public class LocalFileDb implements FileAcquirer, FileRegistry {

    private static final String PREFIX = "LocalFileDb:";

    private final Path directory;
    private final Map<FileReference, Path> files = new LinkedHashMap<>();

    public LocalFileDb(Path appPath) {
        this.directory = appPath.toAbsolutePath().normalize();
    }

    @Override
    public synchronized File waitFor(FileReference reference, long timeout, TimeUnit unit) {
        Path registered = files.get(reference);
        if (registered != null) return registered.toFile();
        Path packaged = directory.resolve(reference.value()).normalize();
        if (packaged.startsWith(directory) && Files.exists(packaged)) return packaged.toFile(); // a file, or a directory a path config names
        return new File(reference.value());
    }

    @Override
    public void shutdown() { }

    @Override
    public synchronized FileReference addFile(String relativePath) {
        Path file = inDirectory(relativePath);
        if ( ! Files.exists(file)) throw new IllegalArgumentException("The application package has no file " + relativePath + " (" + file + ")");
        return register(relativePath, file);
    }

    @Override
    public synchronized FileReference addBlob(String name, ByteBuffer blob) {
        Path file = inDirectory(name);
        byte[] bytes = new byte[blob.remaining()];
        blob.duplicate().get(bytes);
        try (OutputStream out = name.endsWith(".lz4") ? new LZ4FrameOutputStream(Files.newOutputStream(file)) : Files.newOutputStream(file)) {
            out.write(bytes);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
        return register(name, file);
    }

    @Override
    public FileReference addUri(String uri) {
        throw new UnsupportedOperationException("A file given by uri (" + uri + ") is not supported by the standalone container");
    }

    @Override
    public synchronized List<Entry> export() {
        List<Entry> entries = new ArrayList<>(files.size());
        files.forEach((reference, file) -> entries.add(new Entry(file.toString(), reference)));
        return entries;
    }

    private FileReference register(String name, Path file) {
        FileReference reference = new FileReference(PREFIX + name);
        files.put(reference, file);
        return reference;
    }

    /** The path of a file in the application directory, which must not lead out of it. */
    private Path inDirectory(String relativePath) {
        Path file = directory.resolve(relativePath).normalize();
        if ( ! file.startsWith(directory))
            throw new IllegalArgumentException(relativePath + " is not a path inside the application package " + directory);
        return file;
    }

}
