package ai.dwell.runtime.serve.state;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.serve.http.LocalHttpServer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A content node's state API, where proton serves it (the search node's health port): /state/v1/health, up once the
 * node is ready, else initializing, and /state/v1/metrics, its metrics (engine.NodeMetrics and its documents) in the
 * state API's form, each metric with its aggregates (count, sum, max, last) and dimensions. Its counts and sums are
 * since the node started, where proton's are per snapshot period.
 */
public final class NodeStateApi implements AutoCloseable {

    private static final ObjectMapper json = new ObjectMapper();

    private final HttpServer server;
    private final ContentNode node;
    private final BooleanSupplier ready;
    private final long startedSeconds = System.currentTimeMillis() / 1000;

    public NodeStateApi(String host, int port, ContentNode node, BooleanSupplier ready) {
        this.node = node;
        this.ready = ready;
        server = LocalHttpServer.create(host, port, "the state API of content node " + node.distributionKey(), "state-api-" + node.distributionKey());
        server.createContext("/state/v1/health", exchange -> respond(exchange, health()));
        server.createContext("/state/v1/metrics", exchange -> respond(exchange, metrics()));
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }

    private ObjectNode health() {
        ObjectNode root = json.createObjectNode();
        root.putObject("status").put("code", ready.getAsBoolean() ? "up" : "initializing");
        return root;
    }

    private ObjectNode metrics() {
        ObjectNode root = health();
        ObjectNode metrics = root.putObject("metrics");
        metrics.putObject("snapshot").put("from", startedSeconds).put("to", System.currentTimeMillis() / 1000);
        ArrayNode values = metrics.putArray("values");
        add(values, node.metrics().snapshot(), Map.of());
        node.metrics().rankProfileSnapshots().forEach((typeAndProfile, snapshot) ->
                add(values, snapshot, Map.of("documenttype", typeAndProfile.get(0), "rankProfile", typeAndProfile.get(1))));
        node.documentCounts().forEach((type, documents) ->
                add(values, Map.of("content.proton.documentdb.documents.active.last", documents.active(),
                                   "content.proton.documentdb.documents.ready.last", documents.ready(),
                                   "content.proton.documentdb.documents.total.last", documents.total()), Map.of("documenttype", type)));
        return root;
    }

    /** Adds the metrics of a snapshot (name.aggregate → value), each metric with its aggregates under "values". */
    private static void add(ArrayNode values, Map<String, Number> snapshot, Map<String, String> dimensions) {
        Map<String, Map<String, Number>> byMetric = new LinkedHashMap<>();
        snapshot.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(entry -> {
            int dot = entry.getKey().lastIndexOf('.');
            byMetric.computeIfAbsent(entry.getKey().substring(0, dot), __ -> new LinkedHashMap<>()).put(entry.getKey().substring(dot + 1), entry.getValue());
        });
        byMetric.forEach((name, aggregates) -> {
            ObjectNode metric = values.addObject();
            metric.put("name", name);
            ObjectNode aggregated = metric.putObject("values");
            aggregates.forEach((aggregate, value) -> {
                if (value instanceof Long || value instanceof Integer) aggregated.put(aggregate, value.longValue());
                else aggregated.put(aggregate, value.doubleValue());
            });
            if ( ! dimensions.isEmpty()) {
                ObjectNode dimensionsNode = metric.putObject("dimensions");
                dimensions.forEach(dimensionsNode::put);
            }
        });
    }

    private static void respond(HttpExchange exchange, ObjectNode body) throws IOException {
        try (exchange) {
            byte[] bytes = json.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    @Override
    public void close() { server.stop(0); }

}
