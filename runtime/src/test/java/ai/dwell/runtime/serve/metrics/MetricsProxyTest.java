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
            () -> List.of(packet("vespa.container", "queries.rate", 2.5, "chain", "default"))), java.util.Optional::empty);

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

    @Test
    void servesAConsumersMetricsAtMetricsV1Values() throws Exception {
        ai.vespa.metricsproxy.core.ConsumersConfig config = new ai.vespa.metricsproxy.core.ConsumersConfig.Builder()
                .consumer(new ai.vespa.metricsproxy.core.ConsumersConfig.Consumer.Builder().name("default")
                                  .metric(new ai.vespa.metricsproxy.core.ConsumersConfig.Consumer.Metric.Builder()
                                                  .name("queries.rate").outputname("queries.rate").description("")))
                .consumer(new ai.vespa.metricsproxy.core.ConsumersConfig.Consumer.Builder().name("my metrics")
                                  .metric(new ai.vespa.metricsproxy.core.ConsumersConfig.Consumer.Metric.Builder()
                                                  .name("content.proton.search_protocol.query.latency.count").outputname("queries").description("")))
                .build();
        ConsumerMetrics consumers = new ConsumerMetrics(new ai.vespa.metricsproxy.core.MetricsConsumers(config));
        try (MetricsProxy withConsumers = new MetricsProxy("127.0.0.1", 0, "node.local", MetricsProxy.all(
                () -> List.of(packet("vespa.searchnode", "content.proton.search_protocol.query.latency.count", queries.incrementAndGet(), "documenttype", "album")),
                () -> List.of(packet("vespa.container", "queries.rate", 2.5, "chain", "default"))),
                                                              () -> java.util.Optional.of(consumers))) {
            String base = "http://127.0.0.1:" + withConsumers.port();
            HttpResponse<String> mine = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/metrics/v1/values?consumer=my%20metrics")).build(),
                                                                        HttpResponse.BodyHandlers.ofString());
            assertEquals(200, mine.statusCode());
            JsonNode services = new ObjectMapper().readTree(mine.body()).get("services");
            assertEquals(2, services.size(), mine.body());
            assertEquals("vespa.searchnode", services.get(0).get("name").asText());
            assertEquals(1, services.get(0).get("metrics").get(0).get("values").get("queries").asInt(), mine.body());
            assertEquals(1, services.get(0).get("metrics").get(0).get("values").size(), mine.body());
            assertEquals("vespa.container", services.get(1).get("name").asText());
            // the container has none of this consumer's metrics: its status alone, rendered by Vespa's model as no values
            assertEquals(0, services.get(1).get("metrics").get(0).get("values").size(), mine.body());

            HttpResponse<String> unknown = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/metrics/v1/values?consumer=nobody")).build(),
                                                                           HttpResponse.BodyHandlers.ofString());
            JsonNode asDefault = new ObjectMapper().readTree(unknown.body()).get("services");
            assertEquals(0, asDefault.get(0).get("metrics").get(0).get("values").size(), unknown.body());
            assertEquals(2.5, asDefault.get(1).get("metrics").get(0).get("values").get("queries.rate").asDouble(), unknown.body());
            HttpResponse<String> v2 = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/metrics/v2/values?consumer=my+metrics")).build(),
                                                                      HttpResponse.BodyHandlers.ofString());
            JsonNode v2Services = new ObjectMapper().readTree(v2.body()).get("nodes").get(0).get("services");
            assertEquals("node.local", new ObjectMapper().readTree(v2.body()).get("nodes").get(0).get("hostname").asText());
            JsonNode v2Metric = v2Services.get(0).get("metrics").get(0);
            assertEquals(3, v2Metric.get("values").get("queries").asInt(), v2.body());
            assertEquals("album", v2Metric.get("dimensions").get("documenttype").asText(), v2.body());
            assertEquals(null, v2Metric.get("dimensions").get("instance"), "instance is not a public dimension: " + v2.body());
            HttpResponse<String> prometheus = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/prometheus/v1/values?consumer=my%20metrics")).build(),
                                                                              HttpResponse.BodyHandlers.ofString());
            assertTrue(prometheus.body().matches("(?s).*\\nqueries\\{[^}]*documenttype=\"album\"[^}]*} 4\\.0.*"), prometheus.body());
            assertTrue( ! prometheus.body().contains("queries_rate"), prometheus.body());
            assertEquals(404, HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/metrics/v1/valuesX")).build(),
                                                              HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        assertEquals(null, MetricsProxy.consumerParameter(null));
        assertEquals(null, MetricsProxy.consumerParameter("a=b"));
        assertEquals("my metrics", MetricsProxy.consumerParameter("a=b&consumer=my+metrics"));
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
