package ai.dwell.runtime.index;

import com.yahoo.document.GlobalId;
import com.yahoo.document.config.DocumentmanagerConfig;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a content node of one content cluster needs to know: its schemas' configs, the document types,
 * the nodes' distribution keys, which document types are global, which documents it stores (its selection), and the
 * package directory that file references (constants, models) are relative to.
 */
public record ContentClusterConfig(String clusterName,
                                   Path packageDir,
                                   DocumentmanagerConfig documentManager,
                                   List<Integer> distributionKeys,
                                   Set<String> globalDocumentTypes,
                                   Map<String, SchemaConfigs> schemas,
                                   ClusterSelection selection) {

    /** A cluster that stores every document of its types. */
    public ContentClusterConfig(String clusterName, Path packageDir, DocumentmanagerConfig documentManager, List<Integer> distributionKeys,
                                Set<String> globalDocumentTypes, Map<String, SchemaConfigs> schemas) {
        this(clusterName, packageDir, documentManager, distributionKeys, globalDocumentTypes, schemas, ClusterSelection.all());
    }

    public ContentClusterConfig {
        distributionKeys = List.copyOf(distributionKeys);
        globalDocumentTypes = Set.copyOf(globalDocumentTypes);
        schemas = Map.copyOf(schemas);
    }

    public SchemaConfigs schema(String name) {
        SchemaConfigs schema = schemas.get(name);
        if (schema == null) throw new IllegalArgumentException("No schema '" + name + "' in content cluster '" + clusterName + "'");
        return schema;
    }

    public boolean isGlobal(String documentType) { return globalDocumentTypes.contains(documentType); }

    /**
     * The distribution key of the node a document's bucket belongs to: the node that holds a document of a type that is
     * not global, and the one whose copy of a global document is searched (Vespa stores a global document on every
     * node, for imports, but activates one copy of each bucket, so a query finds it once). A stable spread: the
     * location bits of the global id, as Vespa's buckets use them, over the nodes in distribution key order.
     */
    public int bucketOwner(GlobalId gid) {
        long bucket = gid.toBucketId().getId() & 0xffffffffL;
        return distributionKeys.get((int) Math.floorMod(bucket, (long) distributionKeys.size()));
    }

}
