package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.index.ClusterSelection;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.SchemaConfigs;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.vespa.config.search.AttributesConfig;
import com.yahoo.vespa.config.search.ImportedFieldsConfig;
import com.yahoo.vespa.config.search.IndexschemaConfig;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import com.yahoo.vespa.config.search.SummaryConfig;
import com.yahoo.vespa.config.search.core.OnnxModelsConfig;
import com.yahoo.vespa.config.search.core.RankingConstantsConfig;
import com.yahoo.vespa.config.search.core.RankingExpressionsConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.content.StorageNode;
import com.yahoo.vespa.model.content.cluster.ContentCluster;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the configs of every content cluster from a built {@link VespaModel}, into the plain
 * {@link ContentClusterConfig} records the content engine is built from.
 */
public final class ContentClusterConfigs {

    private ContentClusterConfigs() {}

    /** Returns the config of each content cluster of the model, by cluster name. */
    public static Map<String, ContentClusterConfig> from(VespaModel model, Path packageDir) {
        Map<String, ContentClusterConfig> clusters = new TreeMap<>();
        for (ContentCluster cluster : model.getContentClusters().values())
            clusters.put(cluster.getName(), from(model, cluster, packageDir));
        return clusters;
    }

    /** Returns the config of the named content cluster. */
    public static ContentClusterConfig from(VespaModel model, String clusterName, Path packageDir) {
        ContentCluster cluster = model.getContentClusters().get(clusterName);
        if (cluster == null) throw new IllegalArgumentException("No content cluster '" + clusterName + "' in " + model.getContentClusters().keySet());
        return from(model, cluster, packageDir);
    }

    private static ContentClusterConfig from(VespaModel model, ContentCluster cluster, Path packageDir) {
        String name = cluster.getName();
        Map<String, SchemaConfigs> schemas = new LinkedHashMap<>();
        Set<String> global = new HashSet<>();
        for (var type : cluster.getDocumentDefinitions().values()) {
            String schema = type.getName();
            String id = name + "/search/cluster." + name + "/" + schema;
            schemas.put(schema, new SchemaConfigs(schema,
                                                  LargeRankExpressions.inline(model.getConfig(RankProfilesConfig.class, id),
                                                                              LargeRankExpressions.of(cluster, schema)),
                                                  model.getConfig(AttributesConfig.class, id),
                                                  model.getConfig(IndexschemaConfig.class, id),
                                                  model.getConfig(SummaryConfig.class, id),
                                                  model.getConfig(ImportedFieldsConfig.class, id),
                                                  model.getConfig(RankingConstantsConfig.class, id),
                                                  model.getConfig(OnnxModelsConfig.class, id),
                                                  model.getConfig(RankingExpressionsConfig.class, id),
                                                  model.getConfig(com.yahoo.vespa.config.search.summary.JuniperrcConfig.class, id)));
            if (cluster.isGloballyDistributed(type)) global.add(schema);
        }
        if (cluster.getRootGroup().getNumberOfLeafGroups() > 1)
            throw new IllegalArgumentException("Content cluster '" + name + "': groups (" + cluster.getRootGroup().getNumberOfLeafGroups() +
                                               " leaf groups) are not supported by this runtime: give the cluster its nodes in one <nodes> (or one group)");
        var keys = cluster.getRootGroup().recursiveGetNodes().stream().map(StorageNode::getDistributionKey).sorted().toList();
        DocumentmanagerConfig documents = model.getConfig(DocumentmanagerConfig.class, name);
        // Vespa's numbers, as its distributors and proton get them (StorDistributionConfig redundancy and ready_copies):
        // min-redundancy or redundancy, and searchable-copies or its default, capped at the number of nodes
        var redundancy = cluster.getRedundancy();
        return new ContentClusterConfig(name, packageDir.toAbsolutePath(), documents, keys, global, schemas,
                                        ClusterSelection.of(cluster.getRoutingSelector()),
                                        redundancy.effectiveFinalRedundancy(), redundancy.effectiveReadyCopies());
    }

}
