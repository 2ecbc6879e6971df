package ai.dwell.page;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The comments page's files (HTML, JavaScript, CSS), read once from the bundle's resources under
 * dwell-page/. The set of files is fixed: a name not listed here is not served. Their content types carry no
 * charset: the container adds its own (UTF-8, as the files are).
 */
final class PageAssets {

    /** A file of the page: its bytes and content type. */
    record Asset(byte[] bytes, String contentType) { }

    private static final String DIRECTORY = "dwell-page/";
    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "index.html", "text/html",
            "page.js", "text/javascript",
            "page.css", "text/css");

    private final Map<String, Asset> assets;

    PageAssets() {
        this.assets = CONTENT_TYPES.entrySet().stream()
                                   .collect(java.util.stream.Collectors.toUnmodifiableMap(
                                           Map.Entry::getKey, e -> new Asset(read(e.getKey()), e.getValue())));
    }

    /** The file of this name (e.g. "page.js"), if the page has one. */
    Optional<Asset> get(String name) { return Optional.ofNullable(assets.get(name)); }

    private static byte[] read(String name) {
        try (InputStream in = PageAssets.class.getClassLoader().getResourceAsStream(DIRECTORY + name)) {
            if (in == null) throw new IllegalStateException("the bundle lacks " + DIRECTORY + name);
            return in.readAllBytes();
        }
        catch (IOException e) {
            throw new UncheckedIOException("reading " + DIRECTORY + name, e);
        }
    }

}
