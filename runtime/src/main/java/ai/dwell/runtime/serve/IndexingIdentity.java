package ai.dwell.runtime.serve;

import com.yahoo.text.XML;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import org.w3c.dom.NodeList;

import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What besides its schema decides a document type's index content, per type, for the fingerprint of its flushed
 * state: the type's indexing statements, and where they embed or generate, the identity of the embedders and generators: the {@code <component>}
 * elements of the package's services.xml (where embedders are declared) and the path, size and a checksum of the first
 * MiB of each model file they name; and where the package declares a linguistics component, its config and configDir files.
 * A change to any of these makes the type's state unusable, so it is indexed again from the store.
 */
final class IndexingIdentity {

    private static final int HEAD_BYTES = 1 << 20;

    private IndexingIdentity() {}

    static Map<String, String> of(IlscriptsConfig scripts, Path packageDir) {
        String embedders = null;
        String linguistics = linguistics(packageDir);
        Map<String, String> identity = new HashMap<>();
        for (IlscriptsConfig.Ilscript script : scripts.ilscript()) {
            StringBuilder text = new StringBuilder(String.join("\n", script.content()));
            text.append("\n--fields: ").append(script.docfield());
            if ( ! linguistics.isEmpty()) text.append("\n--linguistics:\n").append(linguistics);
            if (script.content().stream().anyMatch(ai.dwell.runtime.index.IndexingScripts::usesEmbedders)) {
                if (embedders == null) embedders = embedders(packageDir);
                text.append("\n--embedders:\n").append(embedders);
            }
            identity.merge(script.doctype(), text.toString(), (a, b) -> a + "\n" + b);
        }
        return identity;
    }

    private static final java.util.regex.Pattern LINGUISTICS_COMPONENT = java.util.regex.Pattern.compile("(class|id)=\"[^\"]*Linguistics\"");
    private static final java.util.regex.Pattern CONFIG_DIR = java.util.regex.Pattern.compile("<configDir>\\s*([^<]+?)\\s*</configDir>");

    /**
     * Where the package declares a linguistics component of its own (a LuceneLinguistics, say), what decides its
     * tokens: services.xml (the analyzers' config) and the path, size and checksum of the first MiB of each file under
     * a configDir it names (stop lists, synonyms), and the size and checksum of each bundle in components/ (a
     * Linguistics of the package's own code, an analyzer or filter factory it holds). Empty for Vespa's default
     * linguistics.
     */
    private static String linguistics(Path packageDir) {
        try {
            Path services = packageDir.resolve("services.xml");
            String servicesText = Files.exists(services) ? Files.readString(services) : "";
            if ( ! LINGUISTICS_COMPONENT.matcher(servicesText).find()) return "";
            StringBuilder identity = new StringBuilder(components(servicesText)).append('\n');
            var dirs = CONFIG_DIR.matcher(servicesText);
            while (dirs.find()) {
                Path dir = packageDir.resolve(dirs.group(1)).normalize();
                if ( ! dir.startsWith(packageDir.normalize()) || ! Files.isDirectory(dir)) continue;
                List<Path> files;
                try (Stream<Path> walk = Files.walk(dir)) { files = walk.filter(Files::isRegularFile).sorted().toList(); }
                for (Path file : files)
                    identity.append(packageDir.relativize(file)).append(' ').append(Files.size(file)).append(' ').append(head(file)).append('\n');
            }
            Path components = packageDir.resolve("components");
            if (Files.isDirectory(components)) {
                List<Path> bundles;
                try (Stream<Path> list = Files.list(components)) { bundles = list.filter(Files::isRegularFile).sorted().toList(); }
                for (Path bundle : bundles)
                    identity.append(packageDir.relativize(bundle)).append(' ').append(Files.size(bundle)).append(' ').append(checksum(bundle)).append('\n');
            }
            return identity.toString();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read the linguistics files in " + packageDir, e);
        }
    }

    private static String embedders(Path packageDir) {
        StringBuilder identity = new StringBuilder();
        try {
            Path services = packageDir.resolve("services.xml");
            String components = components(Files.exists(services) ? Files.readString(services) : "");
            identity.append(components).append('\n');
            // the model files the components name (the embedders' models and tokenizers), not every model in the package:
            // a ranking model or constant, or the build-meta.json each build writes, does not change what is indexed
            List<Path> models;
            try (Stream<Path> files = Files.walk(packageDir)) {
                models = files.filter(Files::isRegularFile).filter(IndexingIdentity::isModelFile)
                              .filter(file -> components.contains(packageDir.relativize(file).toString()))
                              .sorted().toList();
            }
            for (Path model : models)
                identity.append(packageDir.relativize(model)).append(' ').append(Files.size(model)).append(' ').append(head(model)).append('\n');
            return identity.toString();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read the embedders' files in " + packageDir, e);
        }
    }

    /**
     * The {@code <component>} elements of services.xml, where embedders are declared with their models and config, each
     * as written: a change elsewhere (a searcher's config, a chain, the content cluster's tuning) does not change what is
     * indexed. The whole text where it cannot be parsed.
     */
    static String components(String servicesText) {
        if (servicesText.isBlank()) return "";
        try {
            Transformer transformer = TransformerFactory.newInstance().newTransformer();
            transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            StringBuilder components = new StringBuilder();
            NodeList elements = XML.getDocument(servicesText).getElementsByTagName("component");
            for (int i = 0; i < elements.getLength(); i++) {
                StringWriter text = new StringWriter();
                transformer.transform(new DOMSource(elements.item(i)), new StreamResult(text));
                components.append(text).append('\n');
            }
            return components.toString();
        }
        catch (TransformerException | RuntimeException e) { // XML.getDocument's IllegalArgumentException: not XML
            return servicesText;
        }
    }

    private static boolean isModelFile(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".onnx") || name.endsWith(".json") && ! file.toString().contains("/search/query-profiles/") || name.endsWith(".model");
    }

    private static long checksum(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) crc.update(buffer, 0, n);
        }
        return crc.getValue();
    }

    private static long head(Path file) throws IOException {
        CRC32C crc = new CRC32C();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(HEAD_BYTES);
            crc.update(bytes);
        }
        return crc.getValue();
    }

}
