package ai.dwell.runtime.serve.container;

import com.yahoo.language.Linguistics;
import ai.vespa.opennlp.OpenNlpConfig;
import com.yahoo.language.provider.DefaultLinguisticsProvider;
import com.yahoo.vespa.model.VespaModel;

import java.util.Optional;

/**
 * The linguistics the container of a package will use, before that container runs, so that
 * documents can be indexed with it first: Vespa's default (OpenNLP, configured by the model),
 * unless the package brings its own linguistics component.
 */
public final class PackageLinguistics {

    private static final String DEFAULT_PROVIDER = DefaultLinguisticsProvider.class.getName();

    private PackageLinguistics() {}

    /** Vespa's default linguistics as this container is configured, or empty if it uses another. */
    public static Optional<Linguistics> of(VespaModel model, String containerId) {
        var container = model.getContainerClusters().get(containerId);
        boolean usesDefault = container != null && container.getAllComponents().stream()
                .anyMatch(component -> component.getClassId().getName().equals(DEFAULT_PROVIDER));
        if ( ! usesDefault) return Optional.empty();
        OpenNlpConfig config = model.getConfig(OpenNlpConfig.class, containerId + "/component/" + DEFAULT_PROVIDER);
        return Optional.of(new DefaultLinguisticsProvider(config).get());
    }

}
