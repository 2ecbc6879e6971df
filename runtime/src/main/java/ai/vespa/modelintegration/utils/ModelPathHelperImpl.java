package ai.vespa.modelintegration.utils;

import ai.vespa.secret.Secrets;
import com.yahoo.component.AbstractComponent;
import com.yahoo.component.annotation.Inject;
import com.yahoo.config.ModelReference;
import com.yahoo.container.Container;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's stand-in for Vespa's ModelPathHelperImpl (same name and signatures, earlier on the
 * class path, as with VespaDocumentAccess): it resolves the model references of embedders
 * ({@code <transformer-model path="..."/>}) to the application package's files.
 *
 * On a Vespa node the config subscription resolves such paths before a component sees them; the
 * standalone container builds configs straight from the model and leaves them unresolved, which
 * Vespa's class answers with no path. Here a path reference is looked up through the container's file
 * acquirer (the package's files); models given by url are refused, naming the url.
 */
public class ModelPathHelperImpl extends AbstractComponent implements ModelPathHelper {

    private static final long TIMEOUT_SECONDS = 60;

    @Inject
    public ModelPathHelperImpl(Secrets secrets) { }

    @Override
    public Path getModelPathResolvingIfNecessary(ModelReference reference) {
        if (reference.isResolved()) return reference.value();
        if (reference.path().isPresent()) {
            try {
                return Container.get().getFileAcquirer().waitFor(reference.path().get(), TIMEOUT_SECONDS, TimeUnit.SECONDS).toPath();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while resolving model " + reference, e);
            }
        }
        throw new IllegalArgumentException("Model " + reference + ": models given by url or model id are not supported by the " +
                                           "local runtime; give the model as a path in the application package");
    }

}
