package ai.dwell.runtime.serve.container;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Serves a multi-host application on this one machine: every host of the package resolves to a
 * loopback address, content nodes each to their own (127.0.0.2, 127.0.0.3, ...) so that each can
 * listen on the port the model gives it, exactly as on separate machines.
 *
 * The JVM must be started with -Djdk.net.hosts.file pointing at {@link #file()}; the JDK then
 * resolves names from that file only, and re-reads it on every lookup.
 */
public class LocalHosts {

    public static final String HOSTS_FILE_PROPERTY = "jdk.net.hosts.file";

    private final Path file;

    public LocalHosts(Path file) {
        this.file = file;
    }

    /** The hosts file the JVM is using, from the system property, if any. */
    public static LocalHosts fromSystemProperty() {
        String path = System.getProperty(HOSTS_FILE_PROPERTY);
        return path == null ? null : new LocalHosts(Path.of(path));
    }

    public Path file() { return file; }

    /**
     * Writes the hosts file: this machine's names and the given service hosts to 127.0.0.1, and each
     * content host to its own loopback address. Returns the address of each host.
     */
    public Map<String, String> write(List<String> serviceHosts, List<String> contentHosts) {
        Map<String, String> addresses = new LinkedHashMap<>();
        addresses.put("localhost", "127.0.0.1");
        addresses.put(localName(), "127.0.0.1");
        for (String host : serviceHosts) addresses.putIfAbsent(host, "127.0.0.1");
        int next = 2;
        for (String host : contentHosts) addresses.put(host, "127.0.0." + next++);
        StringBuilder text = new StringBuilder("# Written by dwell's runtime: the package's hosts, all on this machine.\n");
        addresses.forEach((host, address) -> text.append(address).append(' ').append(host).append('\n'));
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, text);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
        return addresses;
    }

    /** This machine's host name as the kernel has it (a lookup would go through the hosts file). */
    private static String localName() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        }
        catch (IOException e) {
            return "localhost";
        }
    }

}
