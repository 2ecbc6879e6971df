package ai.dwell.runtime.serve.deploy;

import com.yahoo.cloud.config.ClusterListConfig;
import com.yahoo.vespa.config.content.AllClustersBucketSpacesConfig;
import com.yahoo.vespa.model.VespaModel;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Tells the served container which content clusters there are, and each document type's bucket
 * space, as the full model does. Vespa's standalone container model does not see the content
 * clusters, and /document/v1 would answer "no content clusters" without these configs.
 */
final class ContentClusterList {

    private ContentClusterList() {}

    /** Adds the two configs, taken from the full model, to the container element. */
    static void addTo(Element container, VespaModel model, String containerId) {
        Document xml = container.getOwnerDocument();
        String configId = containerId + "/component/com.yahoo.document.restapi.resource.DocumentV1ApiHandler";

        ClusterListConfig clusters = model.getConfig(ClusterListConfig.class, configId);
        Element clusterList = config(xml, "cloud.config.cluster-list");
        Element storage = child(clusterList, "storage");
        for (ClusterListConfig.Storage cluster : clusters.storage()) {
            Element item = child(storage, "item");
            child(item, "name").setTextContent(cluster.name());
            child(item, "configid").setTextContent(cluster.configid());
        }
        container.appendChild(clusterList);

        AllClustersBucketSpacesConfig spaces = model.getConfig(AllClustersBucketSpacesConfig.class, configId);
        Element bucketSpaces = config(xml, "vespa.config.content.all-clusters-bucket-spaces");
        Element clusterMap = child(bucketSpaces, "cluster");
        spaces.cluster().forEach((name, cluster) -> {
            Element clusterItem = child(clusterMap, "item");
            clusterItem.setAttribute("key", name);
            Element types = child(clusterItem, "documentType");
            cluster.documentType().forEach((type, space) -> {
                Element typeItem = child(types, "item");
                typeItem.setAttribute("key", type);
                child(typeItem, "bucketSpace").setTextContent(space.bucketSpace());
            });
        });
        container.appendChild(bucketSpaces);
    }

    private static Element config(Document xml, String name) {
        Element config = xml.createElement("config");
        config.setAttribute("name", name);
        return config;
    }

    private static Element child(Element parent, String name) {
        Element child = parent.getOwnerDocument().createElement(name);
        parent.appendChild(child);
        return child;
    }

}
