package ai.dwell.runtime.serve;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The runtime's data directory: deployed packages (applications/N), the served copies
 * (served/N), the active deployment, the hosts file, the document store and the embeddings indexing computed.
 */
public record DataDirectory(Path root) {

    public DataDirectory {
        root = root.toAbsolutePath().normalize();
        try {
            Files.createDirectories(root.resolve("applications"));
            Files.createDirectories(root.resolve("served"));
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot use " + root + " as data directory", e);
        }
    }

    public Path application(long sessionId) { return root.resolve("applications").resolve(Long.toString(sessionId)); }

    public Path served(long sessionId) { return root.resolve("served").resolve(Long.toString(sessionId)); }

    public Path hostsFile() { return root.resolve("hosts"); }

    public Path store() { return root.resolve("store"); }

    /** The content nodes' flushed index state: index/&lt;cluster&gt;/&lt;distribution key&gt;/&lt;document type&gt;.index. */
    public Path index() { return root.resolve("index"); }

    /** The embeddings indexing computed, by embedder (see CachingEmbedder). */
    public Path embeddings() { return root.resolve("embeddings"); }

    /** The next unused session id. */
    public long nextSessionId() {
        try (Stream<Path> sessions = Files.list(root.resolve("applications"))) {
            return 1 + sessions.map(p -> p.getFileName().toString()).filter(name -> name.matches("\\d+"))
                               .mapToLong(Long::parseLong).max().orElse(0);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The session last activated, if any. */
    public OptionalLong active() {
        Path file = root.resolve("active");
        try {
            return Files.exists(file) ? OptionalLong.of(Long.parseLong(Files.readString(file).trim())) : OptionalLong.empty();
        }
        catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Records the activated session, atomically. */
    public void setActive(long sessionId) {
        try {
            Path temporary = root.resolve("active.tmp");
            Files.writeString(temporary, sessionId + "\n");
            Files.move(temporary, root.resolve("active"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
