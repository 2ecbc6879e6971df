package ai.dwell.runtime.serve.container;

import com.yahoo.language.Linguistics;
import ai.vespa.opennlp.OpenNlpConfig;
import com.yahoo.language.provider.DefaultLinguisticsProvider;
import com.yahoo.vespa.model.VespaModel;

import java.util.Optional;

/**
 * The linguistics the container of a package will use, before that container runs, so that
 * documents can be indexed with it first: Vespa's default (OpenNLP, configured by the model),
 * unless the package declares a linguistics component of its own (then the one the container injects, once it runs).
 */
public final class PackageLinguistics {

    private static final String DEFAULT_PROVIDER = DefaultLinguisticsProvider.class.getName();

    private PackageLinguistics() {}

    /** Vespa's default linguistics as this container is configured, or empty if it uses another. */
    public static Optional<Linguistics> of(VespaModel model, String containerId) {
        var container = model.getContainerClusters().get(containerId);
        boolean usesDefault = container != null && container.getAllComponents().stream()
                .anyMatch(component -> component.getClassId().getName().equals(DEFAULT_PROVIDER));
        // Vespa's model keeps the default provider beside a linguistics component the package declares (say
        // lucene-linguistics' LuceneLinguistics), and the container then injects the package's: so does indexing
        boolean declaresOwn = container != null && container.getAllComponents().stream()
                .anyMatch(component -> isLinguistics(component.getClassId().getName()));
        if ( ! usesDefault || declaresOwn) return Optional.empty();
        OpenNlpConfig config = model.getConfig(OpenNlpConfig.class, containerId + "/component/" + DEFAULT_PROVIDER);
        return Optional.of(new DefaultLinguisticsProvider(config).get());
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
