package ai.dwell.runtime.serve.metrics;

import ai.dwell.runtime.serve.deploy.ModelBuilder;
import ai.vespa.metricsproxy.core.ConsumersConfig;
import ai.vespa.metricsproxy.core.MetricsConsumers;
import ai.vespa.metricsproxy.metric.model.ConsumerId;
import ai.vespa.metricsproxy.metric.model.DimensionId;
import ai.vespa.metricsproxy.metric.model.MetricId;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.ServiceId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a consumer gets of the application's metrics, as Vespa's metrics proxy selects them: only its metrics, under
 * their output names, with its dimensions, one packet per service and dimensions; the default consumer for an unknown
 * one; and the consumers as Vespa's model configures them from services.xml's admin/metrics.
 */
public class ConsumerMetricsTest {

    private static final Instant NOW = Instant.ofEpochSecond(1_800_000_000L);

    private static final ConsumersConfig CONFIG = new ConsumersConfig.Builder()
            .consumer(new ConsumersConfig.Consumer.Builder().name("default")
                              .metric(metric("queries.rate", "queries.rate")))
            .consumer(new ConsumersConfig.Consumer.Builder().name("my-metrics")
                              .metric(metric("metal_queries.count", "metal_queries.count"))
                              .metric(metric("content.proton.documentdb.documents.active.last", "documents")
                                              .dimension(new ConsumersConfig.Consumer.Metric.Dimension.Builder().key("team").value("search"))))
            .build();

    private final ConsumerMetrics consumers = new ConsumerMetrics(new MetricsConsumers(CONFIG));

    private final List<MetricsPacket> packets = List.of(
            packet("vespa.container", Map.of("chain", "metalchain"), Map.of("metal_queries.count", 3, "metal_queries.rate", 0.05, "queries.rate", 0.1)),
            packet("vespa.container", Map.of("chain", "default"), Map.of("queries.rate", 0.2)),
            packet("vespa.searchnode", Map.of("clusterid", "music", "documenttype", "music"),
                   Map.of("content.proton.documentdb.documents.active.last", 5, "content.proton.documentdb.documents.total.last", 5)),
            packet("vespa.searchnode", Map.of("clusterid", "music"), Map.of("content.proton.search_protocol.query.latency.count", 7)));

    @Test
    void aConsumerGetsItsMetricsOnlyRenamedAndWithItsDimensions() {
        List<MetricsPacket> selected = consumers.select(packets, consumers.consumerOrDefault("my-metrics"), NOW);
        assertEquals(2, selected.size(), selected.toString());

        MetricsPacket container = selected.get(0);
        assertEquals("vespa.container", container.service().id);
        assertEquals(Map.of("metal_queries.count", 3), values(container));
        assertEquals(Map.of("metrictype", "standard", "instance", "container", "chain", "metalchain"), dimensions(container));
        assertEquals(Set.of(ConsumerId.toConsumerId("my-metrics")), container.consumers());
        assertEquals(NOW, container.timestamp());

        MetricsPacket content = selected.get(1);
        assertEquals("vespa.searchnode", content.service().id);
        assertEquals(Map.of("documents", 5), values(content), "renamed to its output name; total.last is not the consumer's");
        assertEquals(Map.of("metrictype", "standard", "instance", "searchnode", "clusterid", "music", "documenttype", "music", "team", "search"),
                     dimensions(content));
    }

    @Test
    void aServiceWithNoneOfTheConsumersMetricsGivesItsStatusAlone() {
        List<MetricsPacket> selected = consumers.select(packets, consumers.consumerOrDefault("default"), NOW);
        assertEquals(3, selected.size(), selected.toString());
        assertEquals(Map.of("queries.rate", 0.1), values(selected.get(0)));
        assertEquals("metalchain", dimensions(selected.get(0)).get("chain"));
        assertEquals(Map.of("queries.rate", 0.2), values(selected.get(1)));
        assertEquals("default", dimensions(selected.get(1)).get("chain"));
        MetricsPacket searchnode = selected.get(2);
        assertEquals("vespa.searchnode", searchnode.service().id);
        assertEquals(Map.of(), values(searchnode));
        assertEquals(Map.of("instance", "searchnode"), dimensions(searchnode));
        assertEquals("up", searchnode.statusMessage());
    }

    @Test
    void anUnknownOrMissingConsumerIsTheDefaultOneAndCaseIsIgnored() {
        assertEquals("default", consumers.consumerOrDefault("no-such").id);
        assertEquals("default", consumers.consumerOrDefault(null).id);
        assertEquals("my-metrics", consumers.consumerOrDefault("MY-Metrics").id);
    }

    @Test
    void theModelsConsumersAreServicesXmlsWithVespasDefaultSetAndVespasOwn(@TempDir Path app) throws IOException {
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                  <admin version="2.0">
                    <adminserver hostalias="node1"/>
                    <metrics>
                      <consumer id="my-metrics">
                        <metric id="metal_queries.count"/>
                        <metric id="dwell.impressions.written.count" display-name="impressions"/>
                      </consumer>
                    </metrics>
                  </admin>
                  <container id="c" version="1.0"/>
                </services>
                """);
        MetricsConsumers model = ModelConsumers.of(ModelBuilder.build(app).model());
        Set<String> ids = new java.util.HashSet<>();
        model.getAllConsumers().forEach(consumer -> ids.add(consumer.id));
        assertTrue(ids.containsAll(Set.of("my-metrics", "default", "Vespa")), ids.toString());
        ConsumerMetrics consumers = new ConsumerMetrics(model);
        ConsumerId mine = consumers.consumerOrDefault("my-metrics");
        List<MetricsPacket> selected = consumers.select(List.of(
                packet("vespa.container", Map.of(), Map.of("metal_queries.count", 4, "metal_queries.rate", 0.1,
                                                           "dwell.impressions.written.count", 9, "dwell.model.version.last", 2,
                                                           "queries.rate", 0.5, "feed.operations.rate", 1.5))), mine, NOW);
        assertEquals(1, selected.size());
        // feed.operations.rate is in Vespa's default set for services.xml's consumers, queries.rate in the "default" consumer's only
        assertEquals(Map.of("metal_queries.count", 4, "impressions", 9, "feed.operations.rate", 1.5), values(selected.get(0)));
        assertEquals(Map.of("queries.rate", 0.5),
                     values(consumers.select(List.of(packet("vespa.container", Map.of(), Map.of("metal_queries.count", 4, "queries.rate", 0.5))),
                                             consumers.consumerOrDefault("default"), NOW).get(0)));
    }

    private static ConsumersConfig.Consumer.Metric.Builder metric(String name, String outputName) {
        return new ConsumersConfig.Consumer.Metric.Builder().name(name).outputname(outputName).description("");
    }

    private static MetricsPacket packet(String service, Map<String, String> dimensions, Map<String, Number> metrics) {
        MetricsPacket.Builder builder = new MetricsPacket.Builder(ServiceId.toServiceId(service)).statusCode(0).statusMessage("up")
                .timestamp(NOW.minusSeconds(5));
        new java.util.TreeMap<>(dimensions).forEach((name, value) -> builder.putDimension(DimensionId.toDimensionId(name), value));
        new java.util.TreeMap<>(metrics).forEach((name, value) -> builder.putMetric(MetricId.toMetricId(name), value));
        return builder.build();
    }

    private static Map<String, Number> values(MetricsPacket packet) {
        Map<String, Number> values = new LinkedHashMap<>();
        packet.metrics().forEach((id, value) -> values.put(id.id, value));
        return values;
    }

    private static Map<String, String> dimensions(MetricsPacket packet) {
        Map<String, String> dimensions = new LinkedHashMap<>();
        packet.dimensions().forEach((id, value) -> dimensions.put(id.id, value));
        return dimensions;
    }

}
