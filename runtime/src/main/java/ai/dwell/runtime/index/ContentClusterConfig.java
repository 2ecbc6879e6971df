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
 * package directory that file references (constants, models) are relative to, and how many copies of each document
 * the nodes hold (redundancy) and how many of those are indexed (ready copies), as Vespa's model makes them
 * effective: {@code StorDistributionConfig} redundancy and ready_copies, capped at the number of nodes.
 */
public record ContentClusterConfig(String clusterName,
                                   Path packageDir,
                                   DocumentmanagerConfig documentManager,
                                   List<Integer> distributionKeys,
                                   Set<String> globalDocumentTypes,
                                   Map<String, SchemaConfigs> schemas,
                                   ClusterSelection selection,
                                   int redundancy,
                                   int readyCopies) {

    /** A cluster that stores every document of its types, one copy of each. */
    public ContentClusterConfig(String clusterName, Path packageDir, DocumentmanagerConfig documentManager, List<Integer> distributionKeys,
                                Set<String> globalDocumentTypes, Map<String, SchemaConfigs> schemas) {
        this(clusterName, packageDir, documentManager, distributionKeys, globalDocumentTypes, schemas, ClusterSelection.all());
    }

    /** A cluster with one copy of each document. */
    public ContentClusterConfig(String clusterName, Path packageDir, DocumentmanagerConfig documentManager, List<Integer> distributionKeys,
                                Set<String> globalDocumentTypes, Map<String, SchemaConfigs> schemas, ClusterSelection selection) {
        this(clusterName, packageDir, documentManager, distributionKeys, globalDocumentTypes, schemas, selection, 1, 1);
    }

    public ContentClusterConfig {
        distributionKeys = List.copyOf(distributionKeys);
        globalDocumentTypes = Set.copyOf(globalDocumentTypes);
        schemas = Map.copyOf(schemas);
        if (redundancy < 1 || readyCopies > redundancy)
            throw new IllegalArgumentException("Content cluster '" + clusterName + "': redundancy " + redundancy + " with " + readyCopies +
                                               " ready copies: need 1 <= redundancy and ready copies <= redundancy");
        redundancy = Math.min(redundancy, distributionKeys.size());
        readyCopies = Math.max(1, Math.min(readyCopies, redundancy)); // the active copy is a ready one (0: a streaming cluster's, searched from its one copy)
    }

    /** This cluster with this redundancy and number of ready (searchable) copies. */
    public ContentClusterConfig withRedundancy(int redundancy, int readyCopies) {
        return new ContentClusterConfig(clusterName, packageDir, documentManager, distributionKeys, globalDocumentTypes, schemas, selection,
                                        redundancy, readyCopies);
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
        return distributionKeys.get(ownerIndex(gid));
    }

    private int ownerIndex(GlobalId gid) {
        long bucket = gid.toBucketId().getId() & 0xffffffffL;
        return (int) Math.floorMod(bucket, (long) distributionKeys.size());
    }

    /**
     * The distribution keys of the nodes holding a copy of the document, the node whose copy is active (searched) first:
     * every node for a global type; else the bucket owner and the nodes after it in distribution key order, wrapping
     * around, {@link #redundancy} in all. This is a stable spread, not Vespa's ideal state (a hash of bucket and node,
     * per group): which node holds which bucket is not visible to queries, only that each document is held by
     * redundancy nodes and searched once.
     */
    public List<Integer> holders(String documentType, GlobalId gid) {
        int copies = isGlobal(documentType) ? distributionKeys.size() : redundancy;
        int first = ownerIndex(gid);
        Integer[] holders = new Integer[copies];
        for (int i = 0; i < copies; i++) holders[i] = distributionKeys.get((first + i) % distributionKeys.size());
        return List.of(holders);
    }

    /**
     * The copy the node holds of a document: active (indexed and searched: the bucket owner's), ready (indexed, not
     * searched: the next ready copies, every other node's copy of a global type, as all its copies are ready),
     * not ready (the rest of the holders': kept, not indexed, as proton's not-ready sub-database) or none.
     */
    public Copy copy(String documentType, GlobalId gid, int distributionKey) {
        int index = distributionKeys.indexOf(distributionKey);
        if (index < 0) return Copy.NONE;
        int position = Math.floorMod(index - ownerIndex(gid), distributionKeys.size()); // its place in holders(), without making the list
        if (position >= (isGlobal(documentType) ? distributionKeys.size() : redundancy)) return Copy.NONE;
        if (position == 0) return Copy.ACTIVE;
        return isGlobal(documentType) || position < readyCopies ? Copy.READY : Copy.NOT_READY;
    }

    /** What copy of a document a node holds (see {@link #copy}). */
    public enum Copy {
        ACTIVE, READY, NOT_READY, NONE;
        public boolean indexed() { return this == ACTIVE || this == READY; }
    }

}
