package ai.dwell.runtime.serve.access;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.Set;

/**
 * Who may use the runtime's HTTP APIs. By default the runtime is bound to loopback: it serves this
 * machine only (the config server listens on loopback, and the container, whose Jetty listens on
 * every interface, refuses requests from other addresses). Bound to another address (--bind), it
 * serves search and document reads to everyone, and writes (/document/v1 puts, updates and
 * removes, and deploys) from other machines only with "Authorization: Bearer TOKEN", the token
 * given by --token-file or DWELL_TOKEN; with no token, other machines cannot write at all.
 * Requests from this machine are always served.
 */
public record WriteAccess(InetAddress bind, Optional<String> token) {

    private static final Set<String> READ_METHODS = Set.of("GET", "HEAD", "OPTIONS");
    private static volatile WriteAccess current = loopback();

    /** A refused request: its HTTP status and why. */
    public record Refusal(int status, String message) {}

    public static WriteAccess loopback() { return new WriteAccess(InetAddress.getLoopbackAddress(), Optional.empty()); }

    /** From the command line's --bind and --token-file, or the DWELL_TOKEN environment variable. */
    public static WriteAccess of(String bind, Path tokenFile, String environmentToken) {
        try {
            InetAddress address = bind == null ? InetAddress.getLoopbackAddress() : InetAddress.getByName(bind);
            if ( ! address.isLoopbackAddress() && ! address.isAnyLocalAddress())
                throw new IllegalArgumentException("--bind takes 127.0.0.1 (this machine only, the default) or 0.0.0.0 (every interface), not " + bind);
            Optional<String> token = Optional.empty();
            if (tokenFile != null) token = Optional.of(Files.readString(tokenFile, StandardCharsets.UTF_8).strip());
            else if (environmentToken != null && ! environmentToken.isBlank()) token = Optional.of(environmentToken.strip());
            if (token.isPresent() && token.get().length() < 16)
                throw new IllegalArgumentException("The token must have at least 16 characters");
            return new WriteAccess(address, token);
        }
        catch (UnknownHostException e) {
            throw new IllegalArgumentException("Cannot bind to '" + bind + "': " + e.getMessage(), e);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read the token file " + tokenFile, e);
        }
    }

    public static WriteAccess current() { return current; }

    public static void use(WriteAccess access) { current = access; }

    public boolean loopbackOnly() { return bind.isLoopbackAddress(); }

    /** Whether a request with this method and path changes data or the deployed application. */
    public static boolean isWrite(String method, String path) {
        if (path.startsWith("/reserved-for-internal-use/")) return true;
        boolean writeMethod = ! READ_METHODS.contains(method.toUpperCase());
        return writeMethod && (path.startsWith("/document/v1") || path.startsWith("/application/"));
    }

    /** Why this request may not be served, if it may not. */
    public Optional<Refusal> check(String method, String path, String remoteAddress, String authorization) {
        if (isLocal(remoteAddress)) return Optional.empty();
        if (loopbackOnly())
            return Optional.of(new Refusal(403, "dwell's runtime is bound to loopback and serves this machine only; " +
                                                "start it with --bind ADDRESS (and --token-file FILE for writes) to serve others"));
        if ( ! isWrite(method, path)) return Optional.empty();
        if (token.isEmpty())
            return Optional.of(new Refusal(403, "Writes from other machines need a token: start the runtime with --token-file FILE or DWELL_TOKEN"));
        if (authorization == null || ! authorization.startsWith("Bearer "))
            return Optional.of(new Refusal(401, "Writes from other machines need 'Authorization: Bearer TOKEN'"));
        byte[] given = authorization.substring("Bearer ".length()).strip().getBytes(StandardCharsets.UTF_8);
        if ( ! MessageDigest.isEqual(given, token.get().getBytes(StandardCharsets.UTF_8)))
            return Optional.of(new Refusal(403, "The bearer token is not the runtime's token"));
        return Optional.empty();
    }

    private static boolean isLocal(String remoteAddress) {
        if (remoteAddress == null) return false;
        try {
            return InetAddress.getByName(remoteAddress).isLoopbackAddress(); // a literal address: no lookup
        }
        catch (UnknownHostException e) {
            return false;
        }
    }

}
