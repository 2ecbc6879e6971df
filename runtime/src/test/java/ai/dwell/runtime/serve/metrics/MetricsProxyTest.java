package ai.dwell.runtime.serve.metrics;

import ai.vespa.metricsproxy.metric.model.DimensionId;
import ai.vespa.metricsproxy.metric.model.MetricId;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.ServiceId;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics proxy's application endpoints as the container's /metrics/v2/values and /prometheus/v1/values read them:
 * the packets of every source, asked anew for each request, in Vespa's generic JSON and in Prometheus text; a source
 * that fails is left out, the others still served.
 */
public class MetricsProxyTest {

    private final AtomicInteger queries = new AtomicInteger();
    private final MetricsProxy proxy = new MetricsProxy("127.0.0.1", 0, "node.local", MetricsProxy.all(
            () -> List.of(packet("vespa.searchnode", "content.proton.search_protocol.query.latency.count", queries.incrementAndGet(), "documenttype", "album")),
            () -> { throw new IllegalStateException("the container is restarting"); },
            () -> List.of(packet("vespa.container", "queries.rate", 2.5, "chain", "default"))));

    @AfterEach
    void close() { proxy.close(); }

    @Test
    void servesEverySourcesPacketsAsJsonAndPrometheusText() throws Exception {
        HttpResponse<String> json = get(MetricsProxy.VALUES_PATH);
        assertEquals(200, json.statusCode());
        JsonNode services = new ObjectMapper().readTree(json.body()).get("nodes").get(0).get("services");
        assertEquals(2, services.size(), json.body());
        assertEquals("vespa.searchnode", services.get(0).get("name").asText());
        JsonNode metric = services.get(0).get("metrics").get(0);
        assertEquals(1, metric.get("values").get("content.proton.search_protocol.query.latency.count").asInt());
        assertEquals("album", metric.get("dimensions").get("documenttype").asText());

        HttpResponse<String> prometheus = get(MetricsProxy.PROMETHEUS_PATH);
        assertEquals(200, prometheus.statusCode());
        assertTrue(prometheus.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        assertTrue(prometheus.body().contains("content_proton_search_protocol_query_latency_count{documenttype=\"album\",vespa_service=\"vespa_searchnode\",} 2.0")
                   || prometheus.body().matches("(?s).*content_proton_search_protocol_query_latency_count\\{[^}]*documenttype=\"album\"[^}]*} 2.0.*"),
                   prometheus.body());
        assertTrue(prometheus.body().contains("queries_rate{"), prometheus.body());
        assertEquals(405, HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri(MetricsProxy.VALUES_PATH)).DELETE().build(),
                                                          HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) { return URI.create("http://127.0.0.1:" + proxy.port() + path); }

    private static MetricsPacket packet(String service, String metric, Number value, String dimension, String dimensionValue) {
        return new MetricsPacket.Builder(ServiceId.toServiceId(service)).statusCode(0).statusMessage("ok")
                .putDimension(DimensionId.toDimensionId(dimension), dimensionValue)
                .putMetric(MetricId.toMetricId(metric), value).build();
    }

}
