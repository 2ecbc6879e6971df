package ai.dwell.runtime.serve.deploy;

import com.yahoo.config.model.api.ConfigDefinitionRepo;
import com.yahoo.vespa.config.ConfigDefinitionKey;
import com.yahoo.vespa.config.buildergen.ConfigDefinition;
import com.yahoo.vespa.config.util.ConfigUtils;

import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The config definitions of the platform, as a config server has them installed (share/vespa/configdefinitions):
 * here, the {@code configdefinitions/*.def} files of the jars on this JVM's class path, which hold Vespa's bundles.
 * A {@code <config name="...">} in services.xml is typed against them (a path field is distributed as a file, a
 * map or struct array built as the definition says); without them the model only knows the package's own
 * bundles' definitions, and warns that it cannot find a platform bundle's (lucene-linguistics' lucene-analysis, say).
 * Read once per JVM: the class path does not change.
 */
public final class PlatformConfigDefinitions implements ConfigDefinitionRepo {

    private static final Logger log = Logger.getLogger(PlatformConfigDefinitions.class.getName());
    private static final String DIRECTORY = "configdefinitions/";
    private static volatile PlatformConfigDefinitions instance;

    private final Map<ConfigDefinitionKey, ConfigDefinition> definitions;

    PlatformConfigDefinitions(Map<ConfigDefinitionKey, ConfigDefinition> definitions) {
        this.definitions = Collections.unmodifiableMap(new LinkedHashMap<>(definitions));
    }

    /** The definitions of the jars on the class path. */
    public static PlatformConfigDefinitions ofClassPath() {
        if (instance == null) {
            synchronized (PlatformConfigDefinitions.class) {
                if (instance == null) instance = read(System.getProperty("java.class.path", ""));
            }
        }
        return instance;
    }

    /** The definitions in the jars of the class path (directories on it are skipped); the first of a key wins, as on a class path. */
    static PlatformConfigDefinitions read(String classPath) {
        Map<ConfigDefinitionKey, ConfigDefinition> definitions = new LinkedHashMap<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if ( ! entry.endsWith(".jar") || ! new File(entry).isFile()) continue;
            try (JarFile jar = new JarFile(entry)) {
                for (JarEntry def : Collections.list(jar.entries())) {
                    String name = def.getName();
                    if ( ! name.startsWith(DIRECTORY) || ! name.endsWith(".def") || name.indexOf('/', DIRECTORY.length()) >= 0) continue;
                    String content = new String(jar.getInputStream(def).readAllBytes(), StandardCharsets.UTF_8);
                    String[] fileName = name.substring(DIRECTORY.length()).split("\\.");
                    ConfigDefinitionKey key = new ConfigDefinitionKey(fileName[fileName.length - 2], ConfigUtils.getDefNamespace(new StringReader(content)));
                    definitions.putIfAbsent(key, new ConfigDefinition(key.getName(), content.split("[\\r\\n]+")));
                }
            }
            catch (IOException | RuntimeException e) {
                log.log(Level.WARNING, "Could not read the config definitions of " + entry + ": " + e.getMessage());
            }
        }
        return new PlatformConfigDefinitions(definitions);
    }

    @Override
    public Map<ConfigDefinitionKey, ConfigDefinition> getConfigDefinitions() { return definitions; }

    @Override
    public ConfigDefinition get(ConfigDefinitionKey key) { return definitions.get(key); }

}
