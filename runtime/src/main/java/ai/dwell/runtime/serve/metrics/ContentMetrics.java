package ai.dwell.runtime.serve.metrics;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.serve.ContentServing;
import ai.vespa.metricsproxy.metric.model.DimensionId;
import ai.vespa.metricsproxy.metric.model.MetricId;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.ServiceId;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The content nodes' metrics, under proton's names, of service vespa.searchnode: per node what it counted of the
 * requests it served (engine.NodeMetrics), per node, document type and rank profile (dimension rankProfile) the
 * queries, their match and rerank time and documents matched and reranked, and per node and document type the copies of
 * documents it holds (content.proton.documentdb.documents.total: every copy, .ready: the indexed ones, .active: the
 * searched ones; see ContentNode#documentCounts). Dimensions: clusterid, distributionkey, and documenttype where per type.
 */
public final class ContentMetrics implements Supplier<List<MetricsPacket>> {

    static final ServiceId SERVICE = ServiceId.toServiceId("vespa.searchnode");

    private final Supplier<ContentServing> content;

    /** @param content the content nodes serving now (null while none are) */
    public ContentMetrics(Supplier<ContentServing> content) { this.content = content; }

    @Override
    public List<MetricsPacket> get() {
        List<MetricsPacket> packets = new ArrayList<>();
        ContentServing serving = content.get();
        if (serving == null) return packets;
        serving.forEachNode((cluster, node) -> {
            packets.add(packet(cluster, node).apply(builder -> node.metrics().snapshot().forEach(
                    (name, value) -> builder.putMetric(MetricId.toMetricId(name), value))));
            packets.add(packet(cluster, node).apply(builder -> node.rankProgramCounts().forEach(
                    (name, value) -> builder.putMetric(MetricId.toMetricId(name), value))));
            node.metrics().rankProfileSnapshots().forEach((typeAndProfile, values) -> packets.add(packet(cluster, node).apply(builder -> {
                builder.putDimension(DimensionId.toDimensionId("documenttype"), typeAndProfile.get(0))
                       .putDimension(DimensionId.toDimensionId("rankProfile"), typeAndProfile.get(1));
                values.forEach((name, value) -> builder.putMetric(MetricId.toMetricId(name), value));
            })));
            node.documentCounts().forEach((type, documents) -> packets.add(packet(cluster, node).apply(builder -> builder
                    .putDimension(DimensionId.toDimensionId("documenttype"), type)
                    .putMetric(MetricId.toMetricId("content.proton.documentdb.documents.active.last"), documents.active())
                    .putMetric(MetricId.toMetricId("content.proton.documentdb.documents.ready.last"), documents.ready())
                    .putMetric(MetricId.toMetricId("content.proton.documentdb.documents.total.last"), documents.total()))));
        });
        return packets;
    }

    private static PacketOf packet(String cluster, ContentNode node) {
        MetricsPacket.Builder builder = new MetricsPacket.Builder(SERVICE).statusCode(0).statusMessage("Data collected successfully")
                .timestamp(java.time.Instant.now())
                .putDimension(DimensionId.toDimensionId("clusterid"), cluster)
                .putDimension(DimensionId.toDimensionId("distributionkey"), Integer.toString(node.distributionKey()));
        return new PacketOf(builder);
    }

    private record PacketOf(MetricsPacket.Builder builder) {
        MetricsPacket apply(java.util.function.Consumer<MetricsPacket.Builder> fill) {
            fill.accept(builder);
            return builder.build();
        }
    }

}
