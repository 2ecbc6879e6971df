package ai.dwell.runtime.serve.configserver;

import ai.dwell.runtime.serve.deploy.InvalidApplicationException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import ai.dwell.runtime.serve.access.WriteAccess;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * The part of Vespa's config server API that `vespa deploy`, `vespa deploy --wait` and
 * `vespa status` use, on port 19071: prepareandactivate with a zipped package, serviceconverge,
 * and the status and health pages.
 */
public class ConfigServer implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ConfigServer.class.getName());
    private static final ObjectMapper json = new ObjectMapper();
    private static final String TENANT = "/application/v2/tenant/default";
    private static final Pattern CONVERGE = Pattern.compile(
            TENANT + "/application/[^/]+/environment/[^/]+/region/[^/]+/instance/[^/]+/serviceconverge/?");
    static final long MAX_PACKAGE_BYTES = 512L << 20;

    private final HttpServer server;
    private final Deployments deployments;

    private final WriteAccess access;

    public ConfigServer(int port, Deployments deployments) throws IOException {
        this(port, deployments, WriteAccess.loopback());
    }

    /** Listens on the access's bind address: loopback by default. */
    public ConfigServer(int port, Deployments deployments, WriteAccess access) throws IOException {
        this.deployments = deployments;
        this.access = access;
        this.server = HttpServer.create(new InetSocketAddress(access.bind(), port), 64);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(4, runnable -> {
            Thread thread = new Thread(runnable, "config-server");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
        log.info("Config server API listening on " + access.bind().getHostAddress() + ":" + port);
    }

    public int port() { return server.getAddress().getPort(); }

    private void handle(HttpExchange exchange) throws IOException {
        // the answer to a failure is written inside the try: try-with-resources closes the exchange before a catch runs
        try (exchange) {
            try {
                serve(exchange);
            }
            catch (RuntimeException | LinkageError e) { // a class a package's component needs and its bundle lacks, too
                log.log(Level.WARNING, "Config server request failed", e);
                // with its causes: a component the container could not construct says why (say, a Lucene factory it lacks)
                respond(exchange, 500, error("INTERNAL_SERVER_ERROR", ai.dwell.runtime.serve.deploy.ModelBuilder.messages(e)));
            }
        }
    }

    private void serve(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String method = exchange.getRequestMethod();
        var refusal = access.check(method, path, exchange.getRemoteAddress().getAddress().getHostAddress(),
                                   exchange.getRequestHeaders().getFirst("Authorization"));
        if (refusal.isPresent()) {
            discardBody(exchange);
            respond(exchange, refusal.get().status(), error(refusal.get().status() == 401 ? "UNAUTHORIZED" : "FORBIDDEN",
                                                            refusal.get().message()));
            return;
        }
        if (path.equals("/state/v1/health") && deployments.activating()) { // /status.html only says the process is up
            respond(exchange, 503, json.createObjectNode().set("status", json.createObjectNode().put("code", "initializing")
                                                                            .put("message", "loading and indexing the content")));
        }
        else if (path.equals("/status.html") || path.equals("/state/v1/health")) {
            respond(exchange, 200, json.createObjectNode().set("status", json.createObjectNode().put("code", "up")));
        }
        else if (path.equals(TENANT + "/prepareandactivate") && method.equals("POST")) {
            deploy(exchange);
        }
        else if (CONVERGE.matcher(path).matches() && method.equals("GET")) {
            converge(exchange);
        }
        else if (path.startsWith("/application/v2/")) {
            respond(exchange, 404, error("NOT_FOUND", "No " + method + " " + path + " in dwell's runtime"));
        }
        else {
            respond(exchange, 404, error("NOT_FOUND", "Not found: " + path));
        }
    }

    private void deploy(HttpExchange exchange) throws IOException {
        byte[] zip;
        try (InputStream in = exchange.getRequestBody()) {
            zip = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, MAX_PACKAGE_BYTES + 1));
        }
        if (zip.length > MAX_PACKAGE_BYTES) {
            respond(exchange, 413, error("INVALID_APPLICATION_PACKAGE", "The application package is larger than " + MAX_PACKAGE_BYTES + " bytes"));
            return;
        }
        try {
            Deployments.Active active = deployments.deploy(zip);
            String host = exchange.getRequestHeaders().getFirst("Host");
            ObjectNode reply = json.createObjectNode();
            ArrayNode logArray = reply.putArray("log");
            active.log().forEach(line -> logArray.addObject().put("level", "INFO").put("message", line));
            reply.put("tenant", "default");
            reply.put("session-id", String.valueOf(active.sessionId()));
            reply.put("url", "http://" + host + TENANT + "/application/default/environment/prod/region/default/instance/default");
            reply.put("message", "Session " + active.sessionId() + " for tenant 'default' prepared and activated.");
            // as Vespa's config server renders them (ConfigChangeActionsSlimeConverter): what the change needs on a cluster
            ObjectNode actions = reply.putObject("configChangeActions");
            for (String type : List.of("restart", "refeed", "reindex")) {
                ArrayNode ofType = actions.putArray(type);
                for (Deployments.ChangeAction action : active.actions()) {
                    if ( ! action.type().equals(type)) continue;
                    ObjectNode entry = ofType.addObject();
                    if (action.name() != null) entry.put("name", action.name());
                    if (action.documentType() != null) entry.put("documentType", action.documentType());
                    if (action.clusterName() != null) entry.put("clusterName", action.clusterName());
                    entry.putArray("messages").add(action.message());
                    entry.putArray("services");
                }
            }
            respond(exchange, 200, reply);
        }
        catch (InvalidApplicationException e) {
            respond(exchange, 400, error("INVALID_APPLICATION_PACKAGE", "Invalid application: " + e.getMessage()));
        }
    }

    private void converge(HttpExchange exchange) throws IOException {
        Deployments.Active active = deployments.active();
        if (active == null) {
            respond(exchange, 404, error("NOT_FOUND", "No application is deployed"));
            return;
        }
        ObjectNode reply = json.createObjectNode();
        reply.put("url", "http://" + exchange.getRequestHeaders().getFirst("Host") + exchange.getRequestURI().getPath());
        reply.put("currentGeneration", active.sessionId());
        reply.put("wantedGeneration", active.sessionId());
        reply.put("converged", true);
        ArrayNode services = reply.putArray("services");
        for (Deployments.Service service : active.services())
            services.addObject().put("host", service.host()).put("port", service.port()).put("type", service.type())
                    .put("clusterName", service.clusterName()).put("currentGeneration", active.sessionId());
        respond(exchange, 200, reply);
    }

    private static ObjectNode error(String code, String message) {
        return json.createObjectNode().put("error-code", code).put("message", message);
    }

    /**
     * Reads what is left of a refused request's body (up to the largest package accepted), so that a
     * client still sending a package gets the answer rather than a reset connection.
     */
    private static void discardBody(HttpExchange exchange) throws IOException {
        InputStream in = exchange.getRequestBody();
        byte[] buffer = new byte[64 << 10];
        long left = MAX_PACKAGE_BYTES;
        for (int read; left > 0 && (read = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0; ) left -= read;
    }

    private static void respond(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(1);
    }

}
