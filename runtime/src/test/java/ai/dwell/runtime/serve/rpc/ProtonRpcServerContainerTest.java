package ai.dwell.runtime.serve.rpc;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.application.Application;
import com.yahoo.application.Networking;
import com.yahoo.config.model.application.provider.FilesApplicationPackage;
import com.yahoo.config.model.deploy.DeployState;
import com.yahoo.config.model.deploy.TestProperties;
import com.yahoo.vespa.config.search.DispatchNodesConfig;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Vespa's own container, from an application package with a content cluster, queried over HTTP:
 * its Dispatcher talks to a {@link ProtonRpcServer} where the model puts the content node.
 */
class ProtonRpcServerContainerTest {

    private static final String dispatcherConfigId = "default/component/dispatcher.music";
    private static final ObjectMapper json = new ObjectMapper();
    private static final HttpClient http = HttpClient.newHttpClient();
    /** Held, so that the handler stays on it. */
    private static final Logger nodeMonitorLog = Logger.getLogger("com.yahoo.search.cluster");
    private static final LogMessages nodeMonitorMessages = new LogMessages();

    @TempDir
    static Path applicationDir;

    private static final FixedBackend backend = new FixedBackend();
    private static DispatchNodesConfig.Node node;
    private static ProtonRpcServer server;
    private static Application container;
    private static int httpPort;

    @BeforeAll
    static void start() throws Exception {
        httpPort = freePort();
        copyApplication(Path.of(ProtonRpcServerContainerTest.class.getResource("/rpc/app").toURI()), applicationDir, httpPort);
        node = dispatchNodes(applicationDir).node(0);
        backend.distributionKey = node.key();
        server = new ProtonRpcServer(backend, node.host(), node.port(), 2);
        container = Application.fromApplicationPackage(applicationDir, Networking.enable);
        nodeMonitorLog.addHandler(nodeMonitorMessages);
    }

    @AfterAll
    static void stop() {
        nodeMonitorLog.removeHandler(nodeMonitorMessages);
        if (container != null) container.close();
        if (server != null) server.close();
    }

    @Test
    void hitsComeBackRankedWithSummariesAndCoverage() throws Exception {
        JsonNode root = search("query=title:foo&tracelevel=3").path("root");

        assertEquals(5, root.path("fields").path("totalCount").asLong());
        JsonNode coverage = root.path("coverage");
        assertEquals(100, coverage.path("coverage").asInt());
        assertEquals(5, coverage.path("documents").asLong());
        assertTrue(coverage.path("full").asBoolean());
        assertTrue(root.path("errors").isMissingNode(), root.toString());

        JsonNode hits = root.path("children");
        assertEquals(2, hits.size());
        assertHit(hits.get(0), "id:test:music::a", 0.9, "Foo Fighters", 1995);
        assertHit(hits.get(1), "id:test:music::b", 0.4, "Foo Manchu", 1997);

        SearchProtocol.SearchRequest request = backend.lastSearch;
        assertEquals("music", request.getDocumentType());
        assertEquals("default", request.getRankProfile());
        assertEquals(3, request.getTraceLevel());
        SearchProtocol.ItemWordTerm term = request.getQueryTree().getRoot().getItemWeakAnd().getChildren(0).getItemWordTerm();
        assertEquals("title", term.getProperties().getIndex());
        assertEquals("foo", term.getWord());
        assertEquals(List.of(FixedBackend.gid(FixedBackend.A), FixedBackend.gid(FixedBackend.B)),
                     backend.lastDocsums.getGlobalIdsList());
        assertEquals("default", backend.lastDocsums.getSummaryClass());
    }

    @Test
    void onlySelectedFieldsAreAskedForAndShown() throws Exception {
        JsonNode hit = search("yql=" + URLEncoder.encode("select title from music where title contains \"foo\"", UTF_8))
                .path("root").path("children").get(0);

        assertEquals("default", backend.lastDocsums.getSummaryClass());
        assertEquals(List.of("title"), backend.lastDocsums.getFieldsList());
        assertEquals("Foo Fighters", hit.path("fields").path("title").asText());
        assertFalse(hit.path("fields").has("year"), "fields not asked for are dropped: " + hit);
        assertTrue(hit.path("id").asText().startsWith("index:music/0/"), "without documentid, the hit id is made from the global id: " + hit);
    }

    @Test
    void matchFeaturesComeBackWithTheHits() throws Exception {
        JsonNode features = search("query=title:foo").path("root").path("children").get(0).path("fields").path("matchfeatures");
        assertEquals(1995.0, features.path("attribute(year)").asDouble(), features.toString());
        assertEquals(json.readTree("[0.5,2.0]"), features.path("embedding").path("values"), features.toString());
    }

    @Test
    void aFailingSearchIsAnErrorInTheResult() throws Exception {
        backend.searchFailure = new IllegalStateException("index is broken");
        try {
            JsonNode root = search("query=title:foo&timeout=20s").path("root");
            JsonNode error = root.path("errors").get(0);
            assertEquals(8, error.path("code").asInt(), root.toString());
            assertEquals("Error in search reply.", error.path("summary").asText());
            assertEquals("index is broken", error.path("message").asText());
            assertFalse(root.has("children"), root.toString());
        }
        finally {
            backend.searchFailure = null;
        }
    }

    @Test
    void failingSummariesAreAnErrorInTheResult() throws Exception {
        backend.docsumFailure = new IllegalStateException("summary store is broken");
        try {
            JsonNode root = search("query=title:foo&timeout=20s").path("root");
            JsonNode errors = root.path("errors");
            assertEquals(8, errors.get(0).path("code").asInt(), root.toString());
            assertEquals("Error in fill reply.", errors.get(0).path("summary").asText());
            assertEquals("summary store is broken", errors.get(0).path("message").asText());
            assertEquals("Empty document summaries", errors.get(1).path("summary").asText());
            assertEquals(2, root.path("children").size(), "hits remain, without summary fields");
        }
        finally {
            backend.docsumFailure = null;
        }
    }

    @Test
    void pingsDecideWhetherTheNodeIsInService() throws Exception {
        awaitTrue(() -> backend.pings.get() > 0, "pinged");
        assertFalse(nodeMonitorMessages.contains("out of service"), nodeMonitorMessages.toString());

        backend.pingFailure = new IllegalStateException("node is down");
        try {
            awaitTrue(() -> nodeMonitorMessages.contains("Taking search node", "key = " + node.key(), "hostname = " + node.host(),
                                                         "out of service: Connection failure", "node is down"),
                      "node taken out of service");
        }
        finally {
            backend.pingFailure = null;
        }
        awaitTrue(() -> nodeMonitorMessages.contains("Putting search node", "in service: Responds correctly"), "node back in service");
        assertEquals(2, search("query=title:foo").path("root").path("children").size());
    }

    private static void assertHit(JsonNode hit, String id, double relevance, String title, int year) {
        assertEquals(id, hit.path("id").asText(), hit.toString());
        assertEquals(relevance, hit.path("relevance").asDouble(), 1e-9);
        assertEquals("music", hit.path("source").asText());
        JsonNode fields = hit.path("fields");
        assertEquals(id, fields.path("documentid").asText());
        assertEquals(title, fields.path("title").asText());
        assertEquals(year, fields.path("year").asInt());
        assertEquals("[0.5,2.0]", fields.path("embedding").path("values").toString(), fields.toString());
        assertEquals(year, fields.path("summaryfeatures").path("attribute(year)").asInt(), fields.toString());
        assertEquals("[0.5,2.0]", fields.path("summaryfeatures").path("attribute(embedding)").path("values").toString());
    }

    private static JsonNode search(String query) throws IOException, InterruptedException, URISyntaxException {
        HttpRequest request = HttpRequest.newBuilder(new URI("http://localhost:" + httpPort + "/search/?" + query))
                                         .timeout(Duration.ofSeconds(30))
                                         .build();
        return json.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    private static DispatchNodesConfig dispatchNodes(Path application) throws Exception {
        DeployState deployState = new DeployState.Builder()
                .applicationPackage(FilesApplicationPackage.fromDir(application.toFile(), true, Map.of()))
                .deployLogger((level, message) -> { })
                .properties(new TestProperties())
                .build();
        return new VespaModel(deployState).getConfig(DispatchNodesConfig.class, dispatcherConfigId);
    }

    /** Copies the application package, with the container's HTTP port set to the given one. */
    private static void copyApplication(Path from, Path to, int httpPort) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(file -> {
                try {
                    Path target = to.resolve(from.relativize(file).toString());
                    if (Files.isDirectory(file))
                        Files.createDirectories(target);
                    else if (file.getFileName().toString().equals("services.xml"))
                        Files.writeString(target, Files.readString(file).replace("port=\"8080\"", "port=\"" + httpPort + "\""));
                    else
                        Files.copy(file, target);
                }
                catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while ( ! condition.getAsBoolean()) {
            if (System.nanoTime() > end) fail("Not " + what + " in 20 s; node monitor said " + nodeMonitorMessages);
            Thread.sleep(50);
        }
    }

    /** Log messages, collected. */
    private static class LogMessages extends Handler {

        private final ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();

        /** Returns whether a message contains all the given texts. */
        boolean contains(String... texts) {
            return messages.stream().anyMatch(message -> Stream.of(texts).allMatch(message::contains));
        }

        @Override public void publish(LogRecord record) { messages.add(record.getMessage()); }
        @Override public void flush() { }
        @Override public void close() { }
        @Override public String toString() { return messages.toString(); }

    }

}
