package ai.dwell.runtime.serve.container;

import com.yahoo.component.AbstractComponent;
import com.yahoo.component.annotation.Inject;
import com.yahoo.language.Linguistics;

/**
 * The runtime's component in the served container (added by ServedPackage): it gets the Linguistics the container
 * injects into its own components (the searchers', the indexing processor's), which is the package's linguistics
 * component where it declares one (a LuceneLinguistics, say), else Vespa's default. The content side indexes with it.
 * (A Linguistics is no AbstractComponent, so the container's component registry does not list it itself.)
 */
public final class InjectedLinguistics extends AbstractComponent {

    private final Linguistics linguistics;

    @Inject
    public InjectedLinguistics(Linguistics linguistics) {
        this.linguistics = linguistics;
    }

    public Linguistics linguistics() { return linguistics; }

}
