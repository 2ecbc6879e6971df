package ai.dwell.runtime.serve.metrics;

import ai.dwell.runtime.serve.http.LocalHttpServer;
import ai.vespa.metricsproxy.http.application.ClusterIdDimensionProcessor;
import ai.vespa.metricsproxy.http.application.Node;
import ai.vespa.metricsproxy.http.application.PublicDimensionsProcessor;
import ai.vespa.metricsproxy.http.application.ServiceIdDimensionProcessor;
import ai.vespa.metricsproxy.metric.dimensions.ApplicationDimensions;
import ai.vespa.metricsproxy.metric.dimensions.ApplicationDimensionsConfig;
import ai.vespa.metricsproxy.metric.dimensions.NodeDimensions;
import ai.vespa.metricsproxy.metric.dimensions.NodeDimensionsConfig;
import ai.vespa.metricsproxy.metric.model.MetricsPacket;
import ai.vespa.metricsproxy.metric.model.json.GenericJsonUtil;
import ai.vespa.metricsproxy.metric.model.processing.MetricsProcessor;
import ai.vespa.metricsproxy.metric.model.prometheus.PrometheusUtil;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What Vespa's metrics proxy (port 19092 on every node) serves the container's /metrics/v2/values and
 * /prometheus/v1/values from: the application's metrics at /applicationmetrics/v1/values (Vespa's generic JSON) and
 * /applicationmetrics/v1/prometheus (Prometheus text), rendered with the metrics proxy's own model classes. The
 * packets come from the given sources: the container's own metrics and the content nodes'. Unlike Vespa's proxy it
 * applies no consumer's metric set there: every metric is served, to every consumer. Its consumer API is served as
 * Vespa's proxy serves it, each consumer of the application (ConsumerMetrics) getting what it lists of the same
 * packets: /metrics/v1/values?consumer= (generic JSON), /metrics/v2/values?consumer= (generic application JSON, public
 * dimensions only) and /prometheus/v1/values?consumer=.
 */
public final class MetricsProxy implements AutoCloseable {

    public static final int PORT = 19092;
    static final String VALUES_PATH = "/applicationmetrics/v1/values";
    static final String PROMETHEUS_PATH = "/applicationmetrics/v1/prometheus";
    static final String CONSUMER_VALUES_PATH = "/metrics/v1/values";
    static final String CONSUMER_V2_VALUES_PATH = "/metrics/v2/values";
    static final String CONSUMER_PROMETHEUS_PATH = "/prometheus/v1/values";

    private static final Logger log = Logger.getLogger(MetricsProxy.class.getName());

    private final HttpServer server;
    private final Supplier<List<MetricsPacket>> packets;
    private final Supplier<Optional<ConsumerMetrics>> consumers;
    private final String hostname;

    /**
     * Serves on the host and port (0: any free port) the metrics of the sources, asked for on each request, to this
     * machine only (a request from another address gets 403), to each consumer of the application served now what it
     * lists of them.
     */
    public MetricsProxy(String host, int port, String hostname, Supplier<List<MetricsPacket>> packets,
                        Supplier<Optional<ConsumerMetrics>> consumers) {
        this.packets = packets;
        this.consumers = consumers;
        this.hostname = hostname;
        server = LocalHttpServer.create(host, port, "metrics", "metrics-proxy");
        server.createContext(VALUES_PATH, exchange -> respond(exchange, "application/json", this::json));
        consumerContext(CONSUMER_VALUES_PATH, "application/json", this::consumerValues);
        consumerContext(CONSUMER_V2_VALUES_PATH, "application/json", this::consumerV2Values);
        consumerContext(CONSUMER_PROMETHEUS_PATH, "text/plain; version=0.0.4; charset=utf-8", this::consumerPrometheus);
        server.createContext(PROMETHEUS_PATH, exchange -> respond(exchange, "text/plain; version=0.0.4; charset=utf-8", this::prometheus));
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }

    private byte[] json() {
        Node node = new Node("dwell-runtime", hostname, port(), "/metrics/v2/values");
        return GenericJsonUtil.toGenericApplicationModel(Map.of(node, packets.get())).serialize().getBytes(StandardCharsets.UTF_8);
    }

    /** Serves at the path (exactly) what the function renders for the request's consumer parameter (null where none). */
    private void consumerContext(String path, String contentType, java.util.function.Function<String, byte[]> render) {
        server.createContext(path, exchange -> {
            if ( ! exchange.getRequestURI().getPath().equals(path)) { // a context matches its path's prefix
                try (exchange) { exchange.sendResponseHeaders(404, -1); }
                return;
            }
            String consumer = consumerParameter(exchange.getRequestURI().getRawQuery());
            respond(exchange, contentType, () -> render.apply(consumer));
        });
    }

    /** The packets this consumer gets (the default consumer's where it is null or not configured), left to build. */
    private List<MetricsPacket.Builder> selected(String requested) {
        return consumers.get()
                .map(of -> of.selectBuilders(packets.get(), of.consumerOrDefault(requested), java.time.Instant.now()))
                .orElse(List.of()); // no application yet
    }

    private static List<MetricsPacket> built(List<MetricsPacket.Builder> builders) {
        return builders.stream().map(MetricsPacket.Builder::build).toList();
    }

    /** /metrics/v1/values: the consumer's metrics in Vespa's generic JSON. */
    private byte[] consumerValues(String requested) {
        return GenericJsonUtil.toGenericJsonModel(built(selected(requested))).serialize().getBytes(StandardCharsets.UTF_8);
    }

    /** /metrics/v2/values: the consumer's metrics with Vespa's public dimensions only, in its generic application JSON. */
    private byte[] consumerV2Values(String requested) {
        List<MetricsPacket.Builder> builders = selected(requested);
        builders.forEach(builder -> MetricsProcessor.applyProcessors(builder, new ServiceIdDimensionProcessor(),
                                                                     new ClusterIdDimensionProcessor(), new PublicDimensionsProcessor()));
        Node node = new Node("dwell-runtime", hostname, 0, "");
        return GenericJsonUtil.toGenericApplicationModel(Map.of(node, built(builders))).serialize().getBytes(StandardCharsets.UTF_8);
    }

    /** /prometheus/v1/values: the consumer's metrics in Prometheus text. */
    private byte[] consumerPrometheus(String requested) {
        return prometheus(built(selected(requested)));
    }

    /** The value of the query's consumer parameter, or null where there is none. */
    static String consumerParameter(String rawQuery) {
        if (rawQuery == null) return null;
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            if (name.equals("consumer")) return equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
        }
        return null;
    }

    private byte[] prometheus() { return prometheus(packets.get()); }

    private static byte[] prometheus(List<MetricsPacket> packets) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
            PrometheusUtil.toPrometheusModel(packets,
                                             new ApplicationDimensions(new ApplicationDimensionsConfig.Builder().build()),
                                             new NodeDimensions(new NodeDimensionsConfig.Builder().build()))
                          .serialize(writer);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void respond(HttpExchange exchange, String contentType, Supplier<byte[]> body) throws IOException {
        try (exchange) {
            if ( ! exchange.getRemoteAddress().getAddress().isLoopbackAddress()) { // for this machine's container only
                exchange.sendResponseHeaders(403, -1);
                return;
            }
            if ( ! "GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes;
            try {
                bytes = body.get();
            }
            catch (RuntimeException e) {
                log.log(Level.WARNING, "Could not render metrics", e);
                bytes = ("Could not render metrics: " + e.getMessage()).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
                exchange.sendResponseHeaders(500, bytes.length);
                exchange.getResponseBody().write(bytes);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", contentType);
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    /** The packets of several sources, each asked in turn; a source that fails is left out, with a WARNING. */
    @SafeVarargs
    public static Supplier<List<MetricsPacket>> all(Supplier<List<MetricsPacket>>... sources) {
        return () -> {
            List<MetricsPacket> all = new ArrayList<>();
            for (Supplier<List<MetricsPacket>> source : sources) {
                try {
                    all.addAll(source.get());
                }
                catch (RuntimeException e) {
                    log.log(Level.WARNING, "A metrics source failed: " + e.getMessage());
                }
            }
            return all;
        };
    }

    @Override
    public void close() { server.stop(0); }

}
