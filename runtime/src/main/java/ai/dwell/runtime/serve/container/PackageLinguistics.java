package ai.dwell.runtime.serve.container;

import com.yahoo.language.Linguistics;
import ai.vespa.opennlp.OpenNlpConfig;
import com.yahoo.language.provider.DefaultLinguisticsProvider;
import com.yahoo.vespa.model.VespaModel;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The linguistics the container of a package will use, before that container runs, so that
 * documents can be indexed with it first: Vespa's default (OpenNLP, configured by the model),
 * unless the package declares a linguistics component of its own (then the one the container injects, once it runs):
 * a platform class (lucene-linguistics' LuceneLinguistics, OpenNlpLinguistics with a config of its own) or a class of the
 * package's bundles that is a Linguistics (one extending OpenNlpLinguistics, say) or cannot be told to be none before
 * its container runs.
 */
public final class PackageLinguistics {

    private static final Logger log = Logger.getLogger(PackageLinguistics.class.getName());

    private static final String DEFAULT_PROVIDER = DefaultLinguisticsProvider.class.getName();

    private PackageLinguistics() {}

    /** Vespa's default linguistics as this container is configured, or empty if it uses another. */
    public static Optional<Linguistics> of(VespaModel model, String containerId, Path packageDir) {
        var container = model.getContainerClusters().get(containerId);
        if (container == null) return Optional.empty();
        List<String> classes = container.getAllComponents().stream().map(component -> component.getClassId().getName()).toList();
        boolean usesDefault = classes.contains(DEFAULT_PROVIDER);
        // Vespa's model keeps the default provider beside a linguistics component the package declares (say
        // lucene-linguistics' LuceneLinguistics), and the container then injects the package's: so does indexing
        if ( ! usesDefault || declaresOwn(classes, packageDir)) return Optional.empty();
        OpenNlpConfig config = model.getConfig(OpenNlpConfig.class, containerId + "/component/" + DEFAULT_PROVIDER);
        return Optional.of(new DefaultLinguisticsProvider(config).get());
    }

    /** Whether one of the classes is a Linguistics of the platform or may be one of the package's bundles. */
    static boolean declaresOwn(List<String> classes, Path packageDir) {
        if (classes.stream().anyMatch(PackageLinguistics::isLinguistics)) return true;
        List<String> ofBundles = classes.stream().filter(name -> ! onPlatform(name)).toList();
        if (ofBundles.isEmpty()) return false;
        try (BundleComponentClasses bundles = BundleComponentClasses.of(packageDir)) {
            for (String name : ofBundles) {
                BundleComponentClasses.Kind kind = bundles.kindOf(name);
                if (kind == BundleComponentClasses.Kind.OTHER || kind == BundleComponentClasses.Kind.NOT_IN_BUNDLES) continue;
                log.info("Indexing uses the linguistics the container injects, once it runs: the package's component " + name +
                         (kind == BundleComponentClasses.Kind.LINGUISTICS ? " is a Linguistics" : " may be one (its class cannot be loaded before its container runs)"));
                return true;
            }
            return false;
        }
    }

    private static boolean onPlatform(String className) {
        try {
            Class.forName(className, false, PackageLinguistics.class.getClassLoader());
            return true;
        }
        catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Whether the class, found on this class path (Vespa's platform bundles), is a Linguistics. */
    static boolean isLinguistics(String className) {
        try {
            return Linguistics.class.isAssignableFrom(Class.forName(className, false, PackageLinguistics.class.getClassLoader()));
        }
        catch (ClassNotFoundException | LinkageError e) {
            return false; // a class of the package's own bundles: not known before its container runs
        }
    }

}
