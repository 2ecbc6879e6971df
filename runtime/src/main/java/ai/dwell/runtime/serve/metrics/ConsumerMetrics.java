package ai.dwell.runtime.serve.metrics;

import ai.vespa.metricsproxy.core.ConfiguredMetric;
import ai.vespa.metricsproxy.core.MetricsConsumers;
import ai.vespa.metricsproxy.http.ValuesFetcher;
import ai.vespa.metricsproxy.metric.model.ConsumerId;
import ai.vespa.metricsproxy.metric.model.Dimension;
import ai.vespa.metricsproxy.metric.model.DimensionId;
import ai.vespa.metricsproxy.metric.model.MetricId;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.ServiceId;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The metrics one consumer of the application's (services.xml's admin/metrics, and Vespa's own consumers: "default",
 * "Vespa", ...) gets, as Vespa's metrics proxy selects them for /metrics/v1/values?consumer=: of each service's
 * metrics only those the consumer lists, each under its output name (display-name in services.xml) where it has one,
 * with the consumer's dimensions for it set; one packet per service and set of dimensions, with the dimensions
 * metrictype=standard and instance (the service's name), or, for a service none of whose metrics the consumer lists,
 * one packet of its status alone. A consumer that is not configured gets the "default" consumer's metrics, as Vespa's
 * ValuesFetcher decides.
 */
public final class ConsumerMetrics {

    static final DimensionId METRIC_TYPE = DimensionId.toDimensionId("metrictype");
    static final DimensionId INSTANCE = DimensionId.toDimensionId("instance");

    private final MetricsConsumers consumers;

    public ConsumerMetrics(MetricsConsumers consumers) { this.consumers = consumers; }

    /** The consumer of this id (case ignored), or the default consumer where there is none such, or no id is given. */
    public ConsumerId consumerOrDefault(String requested) {
        return ValuesFetcher.getConsumerOrDefault(requested, consumers);
    }

    /** The metrics of the packets this consumer gets, of the given time. */
    public List<MetricsPacket> select(List<MetricsPacket> packets, ConsumerId consumer, Instant now) {
        return selectBuilders(packets, consumer, now).stream().map(MetricsPacket.Builder::build).toList();
    }

    /** As select, the packets left to build (for Vespa's metrics processors). */
    public List<MetricsPacket.Builder> selectBuilders(List<MetricsPacket> packets, ConsumerId consumer, Instant now) {
        Map<MetricId, ConfiguredMetric> configured = consumers.getMetricsForConsumer(consumer);
        if (configured == null) throw new IllegalArgumentException("No metrics consumer '" + consumer.id + "'");
        Map<ServiceId, List<MetricsPacket>> byService = new LinkedHashMap<>();
        packets.forEach(packet -> byService.computeIfAbsent(packet.service(), __ -> new ArrayList<>()).add(packet));

        List<MetricsPacket.Builder> selected = new ArrayList<>();
        byService.forEach((service, ofService) -> {
            String instance = instanceOf(service);
            Map<Map<DimensionId, String>, Map<MetricId, Number>> byDimensions = new LinkedHashMap<>();
            for (MetricsPacket packet : ofService) {
                packet.metrics().forEach((id, value) -> {
                    ConfiguredMetric metric = configured.get(id);
                    if (metric == null) return;
                    Map<DimensionId, String> dimensions = new LinkedHashMap<>(packet.dimensions());
                    for (Dimension dimension : metric.dimension()) dimensions.put(dimension.key(), dimension.value());
                    MetricId name = metric.outputname() == null || metric.outputname().id.isEmpty() ? id : metric.outputname();
                    byDimensions.computeIfAbsent(dimensions, __ -> new LinkedHashMap<>()).put(name, value);
                });
            }
            if (byDimensions.isEmpty()) { // as Vespa, the service's status alone
                MetricsPacket first = ofService.get(0);
                selected.add(new MetricsPacket.Builder(service).timestamp(now)
                                     .statusCode(first.statusCode()).statusMessage(first.statusMessage())
                                     .putDimension(INSTANCE, instance)
                                     .addConsumers(Set.of(consumer)));
                return;
            }
            byDimensions.forEach((dimensions, metrics) -> {
                MetricsPacket.Builder builder = new MetricsPacket.Builder(service).timestamp(now)
                        .statusCode(0).statusMessage("Data collected successfully")
                        .putDimension(METRIC_TYPE, "standard")
                        .putDimension(INSTANCE, instance)
                        .putDimensions(dimensions)
                        .addConsumers(Set.of(consumer));
                metrics.forEach(builder::putMetric);
                selected.add(builder);
            });
        });
        return selected;
    }

    /** The service's name without the monitoring system's prefix: searchnode of vespa.searchnode. */
    private static String instanceOf(ServiceId service) {
        int dot = service.id.indexOf('.');
        return dot < 0 ? service.id : service.id.substring(dot + 1);
    }

}
