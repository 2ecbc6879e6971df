package ai.dwell.runtime.serve;

import ai.dwell.runtime.serve.configserver.Deployments;
import ai.dwell.runtime.serve.container.ContainerHosts;
import ai.dwell.runtime.serve.container.PackageEmbedders;
import ai.dwell.runtime.serve.feed.IndexFollower;
import ai.dwell.runtime.storage.DocumentStore;
import ai.dwell.runtime.serve.deploy.PackageServices;
import com.yahoo.vespa.model.VespaModel;

import java.nio.file.Path;
import java.util.List;

/**
 * One activated deployment: Vespa's model of the package, the container serving it, and the
 * content nodes, which follow the document store.
 *
 * @param sessionId    the deployment's id, increasing with every deploy
 * @param deployedDir  the package as deployed
 * @param model        Vespa's model of it, the source of every config
 * @param services     what the runtime serves of it
 * @param containers   the running containers, one per container cluster
 * @param content      the content nodes
 * @param store        the document store the content nodes follow
 * @param follower     what keeps them following it
 * @param embedders    the package's embedders the follower indexes with, or null when it uses the container's
 * @param log          what Vespa logged while building the model
 */
public record Generation(long sessionId, Path deployedDir, VespaModel model, PackageServices services,
                         ContainerHosts containers, ContentServing content, DocumentStore store,
                         IndexFollower follower, PackageEmbedders embedders, List<String> log,
                         List<Deployments.ChangeAction> actions) implements AutoCloseable {

    @Override
    public void close() {
        store.removeListener(follower);
        containers.close();
        content.close();
        if (embedders != null) embedders.close();
    }

}
