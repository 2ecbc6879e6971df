package ai.dwell.runtime.serve.container;

import com.yahoo.language.Linguistics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Tells, before the package's container runs, whether a component class of the package's own bundles
 * (components/*.jar) is a {@link Linguistics}: the class is loaded, not initialized, from the bundle jars with the
 * platform (the runtime's class path) as parent, so a class extending Vespa's OpenNlpLinguistics (the shape of
 * vespa-chinese-linguistics and the linguistics-asia sample apps) is known to be one. A class of a bundle jar whose
 * supertypes are in jars the bundle embeds cannot be told here. A class in none of the bundle jars is not the
 * package's: Vespa's model adds components of platform bundles the runtime does not hold (the indexing processor of
 * docproc, say), and a class in a jar a bundle embeds is not looked for.
 */
final class BundleComponentClasses implements AutoCloseable {

    enum Kind { LINGUISTICS, OTHER, UNKNOWN, NOT_IN_BUNDLES }

    private final URLClassLoader loader;

    private BundleComponentClasses(URLClassLoader loader) {
        this.loader = loader;
    }

    /** The classes of the package's bundles: the jars in its components/ directory. */
    static BundleComponentClasses of(Path packageDir) {
        List<URL> urls = new ArrayList<>();
        Path components = packageDir.resolve("components");
        if (Files.isDirectory(components)) {
            try (Stream<Path> files = Files.list(components)) {
                for (Path jar : files.filter(file -> file.getFileName().toString().endsWith(".jar")).sorted().toList())
                    urls.add(jar.toUri().toURL());
            }
            catch (MalformedURLException e) {
                throw new IllegalArgumentException(e);
            }
            catch (IOException e) {
                throw new UncheckedIOException("Could not list the bundles in " + components, e);
            }
        }
        return new BundleComponentClasses(new URLClassLoader("dwell-bundle-component-classes", urls.toArray(new URL[0]),
                                                             BundleComponentClasses.class.getClassLoader()));
    }

    /** Whether the class is a Linguistics, another component, not known before the container runs, or in no bundle jar. */
    Kind kindOf(String className) {
        try {
            Class.forName(className, false, BundleComponentClasses.class.getClassLoader());
        }
        catch (ClassNotFoundException | LinkageError e) { // not a platform class: is it one of the bundles'?
            if (loader.findResource(className.replace('.', '/') + ".class") == null) return Kind.NOT_IN_BUNDLES;
        }
        try {
            return Linguistics.class.isAssignableFrom(Class.forName(className, false, loader)) ? Kind.LINGUISTICS : Kind.OTHER;
        }
        catch (ClassNotFoundException | LinkageError e) { // in a jar a bundle embeds, or a supertype is
            return Kind.UNKNOWN;
        }
    }

    @Override
    public void close() {
        try {
            loader.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
