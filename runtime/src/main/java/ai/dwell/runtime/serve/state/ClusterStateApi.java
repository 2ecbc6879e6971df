package ai.dwell.runtime.serve.state;

import ai.dwell.runtime.serve.http.LocalHttpServer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A cluster controller's HTTP port, where Vespa's model puts it (19050 by default): the cluster state REST API
 * (/cluster/v2, see ClusterStates) and the status pages (/clustercontroller-status/v1, see ClusterStatusPages). Its
 * other paths (e.g. the state API) answer 404.
 */
public final class ClusterStateApi implements AutoCloseable {

    private static final ObjectMapper json = new ObjectMapper();

    private final HttpServer server;
    private final ClusterStates states;
    private final ClusterStatusPages pages;

    public ClusterStateApi(String host, int port, ClusterStates states, ClusterStatusPages pages) {
        this.states = states;
        this.pages = pages;
        server = LocalHttpServer.create(host, port, "the cluster controller's state API", "cluster-controller-" + port);
        server.createContext(ClusterStates.PREFIX, this::respond);
        server.createContext(ClusterStatusPages.PREFIX, this::page);
        server.start();
    }

    public int port() { return server.getAddress().getPort(); }

    private void respond(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if ( ! path.equals(ClusterStates.PREFIX) && ! path.startsWith(ClusterStates.PREFIX + "/")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            exchange.getRequestBody().readAllBytes();
            ClusterStates.Answer answer = states.answer(exchange.getRequestMethod(), path, parameter(exchange.getRequestURI().getRawQuery(), "recursive"));
            byte[] bytes = json.writeValueAsBytes(answer.body());
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    private void page(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            exchange.getRequestBody().readAllBytes();
            if ( ! exchange.getRequestMethod().equals("GET")) {
                exchange.getResponseHeaders().set("Allow", "GET");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            if ( ! path.equals(ClusterStatusPages.PREFIX) && ! path.startsWith(ClusterStatusPages.PREFIX + "/")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            ClusterStatusPages.Page page = pages.page(path);
            byte[] bytes = page.html().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(page.status(), bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }

    /** The value of the query's parameter, or null where there is none. */
    static String parameter(String rawQuery, String name) {
        if (rawQuery == null) return null;
        for (String pair : rawQuery.split("&")) {
            int equals = pair.indexOf('=');
            String key = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            if (key.equals(name)) return equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
        }
        return null;
    }

    @Override
    public void close() { server.stop(0); }

}
