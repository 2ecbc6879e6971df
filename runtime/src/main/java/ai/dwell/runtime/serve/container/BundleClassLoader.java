package ai.dwell.runtime.serve.container;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The class loader of the application's bundles in the standalone container: each bundle's Bundle-ClassPath (the
 * bundle jar and the jars it embeds, which a URLClassLoader cannot read inside the bundle, so they are unpacked to a
 * directory of this loader's own), and the OSGi order of a bundle's classes: a package the bundle contains and does not
 * import is the bundle's own and loaded from the bundle first (as an OSGi framework wires it), so a bundle that embeds
 * Lucene gets its own Lucene, whatever version the runtime's class path has; every other package (those it imports:
 * Vespa's API, the JDK) comes from the platform, the runtime's class path, first. A jar without Import-Package (not an
 * OSGi bundle) is loaded platform first, as Vespa's standalone container loads all bundles.
 * <p>
 * Resources follow their package; a META-INF/services file of a service type in a bundle's own package lists the
 * bundle's providers only (as an OSGi bundle's ServiceLoader sees), so that Lucene's analysis SPI of the bundle's Lucene
 * finds the factories the bundle embeds (e.g. lucene-analysis-nori's) and never a platform class of another Lucene.
 */
public final class BundleClassLoader extends URLClassLoader {

    private static final Logger log = Logger.getLogger(BundleClassLoader.class.getName());
    private static final String SERVICES = "META-INF/services/";
    private static final String PREFIX = "bundles-";

    static { registerAsParallelCapable(); }

    private final Set<String> ownPackages;
    private final Path unpacked;

    private BundleClassLoader(URL[] urls, Set<String> ownPackages, Path unpacked, ClassLoader parent) {
        super("dwell-application-bundles", urls, parent);
        this.ownPackages = Set.copyOf(ownPackages);
        this.unpacked = unpacked;
    }

    /** A loader of these bundle jars, which unpacks the jars they embed to a new directory under workDir. */
    public static BundleClassLoader of(List<Path> bundles, ClassLoader parent, Path workDir) {
        try {
            Files.createDirectories(workDir);
            removeStale(workDir);
            Path unpacked = Files.createTempDirectory(workDir, PREFIX + ProcessHandle.current().pid() + "-");
            List<URL> urls = new ArrayList<>();
            Set<String> ownPackages = new HashSet<>();
            int index = 0;
            for (Path bundle : bundles) {
                BundleManifest manifest = BundleManifest.of(bundle);
                Set<String> contained = new HashSet<>();
                for (Path jar : classPathOf(bundle, manifest, unpacked.resolve(String.valueOf(index++)))) {
                    urls.add(jar.toUri().toURL());
                    contained.addAll(packagesIn(jar));
                }
                if (manifest.declaresImports()) {
                    contained.removeAll(manifest.importedPackages());
                    ownPackages.addAll(contained);
                }
            }
            return new BundleClassLoader(urls.toArray(new URL[0]), ownPackages, unpacked, parent);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not prepare the class path of the application's bundles " + bundles, e);
        }
    }

    /** Deletes the directories that processes no longer running left (a runtime killed with its container open). */
    static void removeStale(Path workDir) throws IOException {
        try (Stream<Path> directories = Files.list(workDir)) {
            for (Path directory : directories.toList()) {
                String[] parts = directory.getFileName().toString().split("-");
                if (parts.length < 3 || ! (parts[0] + "-").equals(PREFIX) || ! parts[1].matches("[0-9]+")) continue;
                if (ProcessHandle.of(Long.parseLong(parts[1])).isPresent()) continue;
                delete(directory);
            }
        }
    }

    private static void delete(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList())
                Files.deleteIfExists(path);
        }
    }

    /** The jars of the bundle's Bundle-ClassPath, the embedded ones unpacked to the given directory. */
    static List<Path> classPathOf(Path bundle, BundleManifest manifest, Path directory) throws IOException {
        List<Path> jars = new ArrayList<>();
        try (JarFile file = new JarFile(bundle.toFile())) {
            for (String entry : manifest.classPath()) {
                if (entry.equals(".") || entry.equals("/")) {
                    jars.add(bundle);
                    continue;
                }
                String name = entry.startsWith("/") ? entry.substring(1) : entry;
                JarEntry embedded = file.getJarEntry(name);
                if (embedded == null) { // OSGi skips an entry the bundle lacks
                    log.warning("Bundle " + bundle.getFileName() + " names '" + entry + "' in its Bundle-ClassPath, which it does not contain");
                    continue;
                }
                if (embedded.isDirectory() || ! name.endsWith(".jar"))
                    throw new IllegalArgumentException("Bundle " + bundle.getFileName() + " has '" + entry + "' in its Bundle-ClassPath: " +
                                                       "the runtime's standalone container supports the bundle itself ('.') and jars in it, not directories");
                Path target = directory.resolve(name).normalize();
                if ( ! target.startsWith(directory))
                    throw new IllegalArgumentException("Bundle " + bundle.getFileName() + " has '" + entry + "' outside itself in its Bundle-ClassPath");
                Files.createDirectories(target.getParent());
                try (InputStream in = file.getInputStream(embedded)) {
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
                jars.add(target);
            }
        }
        return jars;
    }

    /** The packages of the classes in a jar. */
    static Set<String> packagesIn(Path jar) throws IOException {
        Set<String> packages = new HashSet<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                String name = entries.nextElement().getName();
                if ( ! name.endsWith(".class") || name.startsWith("META-INF/")) continue;
                int slash = name.lastIndexOf('/');
                if (slash > 0) packages.add(name.substring(0, slash).replace('/', '.'));
            }
        }
        return packages;
    }

    /** Whether the class's package is one of the bundles' own (contained and not imported). */
    public boolean isOwn(String className) {
        int dot = className.lastIndexOf('.');
        return dot > 0 && ownPackages.contains(className.substring(0, dot));
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if ( ! isOwn(name)) return super.loadClass(name, resolve);
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                try {
                    loaded = findClass(name);
                }
                catch (ClassNotFoundException e) {
                    loaded = getParent().loadClass(name); // a class of an own package which only the platform has
                }
            }
            if (resolve) resolveClass(loaded);
            return loaded;
        }
    }

    @Override
    public URL getResource(String name) {
        if ( ! isOwnResource(name)) return super.getResource(name);
        URL own = findResource(name);
        return own != null ? own : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if ( ! isOwnResource(name)) return super.getResources(name);
        Enumeration<URL> own = findResources(name);
        if (own.hasMoreElements() || name.startsWith(SERVICES)) return own;
        return getParent().getResources(name);
    }

    /** Whether the resource is in one of the bundles' own packages, or lists the providers of a service type of one. */
    boolean isOwnResource(String name) {
        if (name.startsWith(SERVICES)) return isOwn(name.substring(SERVICES.length()));
        int slash = name.lastIndexOf('/');
        return slash > 0 && ownPackages.contains(name.substring(0, slash).replace('/', '.'));
    }

    /** Closes the jars and deletes the unpacked ones (those of a process that died are deleted by the next loader made). */
    @Override
    public void close() throws IOException {
        super.close();
        delete(unpacked);
    }

    @Override
    public String toString() {
        return "BundleClassLoader" + List.of(getURLs());
    }

}
