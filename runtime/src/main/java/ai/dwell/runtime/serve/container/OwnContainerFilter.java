package ai.dwell.runtime.serve.container;

import com.yahoo.component.AbstractComponent;
import com.yahoo.jdisc.handler.ResponseHandler;
import com.yahoo.jdisc.http.filter.DiscFilterRequest;
import com.yahoo.jdisc.http.filter.SecurityRequestFilter;

/**
 * In a package with several container clusters, each served by a container of its own in this process (see
 * {@link ContainerHosts}): binds the thread serving a request to the process-wide {@link com.yahoo.container.Container}
 * instance of the container it is made in, so Vespa's handlers that read that instance while serving (the root and
 * /ApplicationStatus, listing the handlers) see their own container's. The runtime puts it first in every container's
 * request filter chain (deploy.AccessFilterChain); request filters and those handlers run on the same thread.
 */
public class OwnContainerFilter extends AbstractComponent implements SecurityRequestFilter {

    private final com.yahoo.container.Container own = com.yahoo.container.Container.get(); // made while its container starts

    @Override
    public void filter(DiscFilterRequest request, ResponseHandler handler) {
        com.yahoo.container.Container.bindToCurrentThread(own);
    }

}
