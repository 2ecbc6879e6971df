package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.SchemaConfigs;
import ai.dwell.runtime.rank.RankAssets;
import ai.dwell.runtime.rank.RankProfile;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.GlobalId;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The document indexes of one content node, one per document type of its cluster (imported fields
 * resolved between them), with each schema's rank assets, and the not-ready copies of each type. Not synchronized:
 * the content node locks.
 *
 * A node that places replicas (as the runtime's serving nodes do) holds a document as the cluster's
 * {@link ContentClusterConfig#copy} says: its ready copies are indexed, and searched where active (the bucket owner's);
 * its not-ready copies are bookkeeping ({@link NotReadyCopies}). A node that does not (a node alone, as tests build
 * it) indexes and searches every document of a type that is not global it is given.
 */
final class NodeIndexes implements AutoCloseable {

    private final ContentClusterConfig config;
    private final int distributionKey;
    private final Map<String, DocumentIndex> indexes = new LinkedHashMap<>();
    private final Map<String, RankAssets> assets = new LinkedHashMap<>();
    private final Map<String, NotReadyCopies> notReady = new LinkedHashMap<>();
    private final boolean placesReplicas;

    NodeIndexes(ContentClusterConfig config, int distributionKey, boolean placesReplicas) {
        if ( ! config.distributionKeys().contains(distributionKey))
            throw new IllegalArgumentException("No node with distribution key " + distributionKey + " in " + config.clusterName() + ": " + config.distributionKeys());
        this.config = config;
        this.distributionKey = distributionKey;
        this.placesReplicas = placesReplicas;
        DocumentTypeManager types = new DocumentTypeManager(config.documentManager());
        for (SchemaConfigs schema : config.schemas().values()) {
            indexes.put(schema.name(), new DocumentIndex(schema, types, searchedHere(schema.name())));
            assets.put(schema.name(), new RankAssets(schema, config.packageDir()));
            notReady.put(schema.name(), new NotReadyCopies());
        }
        for (DocumentIndex index : indexes.values()) index.importFrom(indexes);
    }

    /**
     * Which indexed documents of a type a search on this node finds (null: all): those whose copy here is active, for a
     * global type on a node of several, and for any type on a node that places replicas, if there are several.
     */
    private Predicate<GlobalId> searchedHere(String type) {
        if (config.isGlobal(type) ? config.distributionKeys().size() == 1 : ! placesReplicas || config.redundancy() == 1) return null;
        return gid -> copy(type, gid) != ContentClusterConfig.Copy.READY;
    }

    /** The copy this node holds of a document of the type, as its cluster places them (see the class comment). */
    ContentClusterConfig.Copy copy(String type, GlobalId gid) {
        if ( ! placesReplicas && ! config.isGlobal(type)) return ContentClusterConfig.Copy.ACTIVE;
        return config.copy(type, gid, distributionKey);
    }

    /** The not-ready copies of a document type. */
    NotReadyCopies notReady(String documentType) {
        index(documentType); // fails for a type the cluster does not have
        return notReady.get(documentType);
    }

    boolean placesReplicas() { return placesReplicas; }

    int distributionKey() { return distributionKey; }

    ContentClusterConfig config() { return config; }

    /** The indexes of every document type, by type. */
    Map<String, DocumentIndex> all() { return indexes; }

    /** Resolves references between the indexes again, after state was loaded into them. */
    void resolveReferences() { indexes.values().forEach(DocumentIndex::resolveReferences); }

    /** The index of a document type; fails if the cluster has no such type. */
    DocumentIndex index(String documentType) {
        DocumentIndex index = indexes.get(documentType);
        if (index == null) throw new IllegalArgumentException("No document type '" + documentType + "' in content cluster '" + config.clusterName() + "'");
        return index;
    }

    /** The indexes a request for this document type ("" for all) searches. */
    List<DocumentIndex> searched(String documentType) {
        if (documentType.isEmpty()) return List.copyOf(indexes.values());
        return List.of(index(documentType));
    }

    /** The indexes a search of this document type ("" for all) with this rank profile ranks: those whose schema has it; fails if none has. */
    List<DocumentIndex> searched(String documentType, String profileName) {
        List<DocumentIndex> searched = searched(documentType).stream().filter(index -> profile(index, profileName).isPresent()).toList();
        if (searched.isEmpty())
            throw new UnsupportedFeatureException("No rank profile '" + profileName + "' in " + (documentType.isEmpty() ? "any schema" : "schema '" + documentType + "'"));
        return searched;
    }

    Optional<RankProfile> profile(DocumentIndex index, String profileName) { return assets(index.name()).profile(profileName); }

    RankAssets assets(String schema) { return assets.get(schema); }

    /** The number of documents searches find, all types (a global type counts the copies this node owns). */
    long activeDocuments() {
        return indexes.values().stream().mapToLong(DocumentIndex::searchedCount).sum();
    }

    /** The number of documents a search of this document type ("" for all) finds, as proton answers a search's
     *  active documents: those of the type's document database only, all databases' for a search of no type. */
    long activeDocuments(String documentType) {
        return searched(documentType).stream().mapToLong(DocumentIndex::searchedCount).sum();
    }

    @Override
    public void close() { assets.values().forEach(RankAssets::close); }

}
