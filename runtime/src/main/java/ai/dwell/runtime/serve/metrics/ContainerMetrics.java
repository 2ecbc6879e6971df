package ai.dwell.runtime.serve.metrics;

import ai.vespa.metricsproxy.metric.Metric;
import ai.vespa.metricsproxy.metric.model.DimensionId;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.ServiceId;
import ai.vespa.metricsproxy.service.MetricsParser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The container's metrics, as Vespa's metrics proxy reads them: its /state/v1/metrics, parsed with the proxy's own
 * MetricsParser, one packet per set of dimensions, of service vespa.container.
 */
public final class ContainerMetrics implements Supplier<List<MetricsPacket>> {

    static final ServiceId SERVICE = ServiceId.toServiceId("vespa.container");

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Supplier<URI> stateMetricsOfServing;

    /** @param stateMetrics the /state/v1/metrics of the container serving now */
    public ContainerMetrics(Supplier<URI> stateMetrics) { this.stateMetricsOfServing = stateMetrics; }

    @Override
    public List<MetricsPacket> get() {
        URI stateMetrics = stateMetricsOfServing.get();
        HttpResponse<String> response;
        try {
            response = client.send(HttpRequest.newBuilder(stateMetrics).timeout(Duration.ofSeconds(5)).GET().build(),
                                   HttpResponse.BodyHandlers.ofString());
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not read " + stateMetrics, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted reading " + stateMetrics, e);
        }
        if (response.statusCode() != 200) throw new IllegalStateException(stateMetrics + " answered " + response.statusCode());
        Map<Map<DimensionId, String>, List<Metric>> byDimensions = new LinkedHashMap<>();
        try {
            MetricsParser.parse(response.body(), metric -> byDimensions.computeIfAbsent(metric.getDimensions(), __ -> new ArrayList<>()).add(metric));
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not parse " + stateMetrics, e);
        }
        List<MetricsPacket> packets = new ArrayList<>();
        java.time.Instant now = java.time.Instant.now(); // else the packets are of 1970 (a Prometheus server drops such samples)
        byDimensions.forEach((dimensions, metrics) -> packets.add(new MetricsPacket.Builder(SERVICE).timestamp(now).statusCode(0)
                                                                                                   .statusMessage("Data collected successfully")
                                                                                                   .putDimensions(dimensions)
                                                                                                   .putMetrics(metrics).build()));
        return packets;
    }

}
