package ai.dwell.runtime.serve.state;

import ai.dwell.runtime.rank.DwellPackage;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterStatesTest {

    private static final ObjectMapper json = new ObjectMapper();

    /** A package with one content cluster of two nodes, distribution keys 0 and 2, in two groups (which the runtime refuses at
     *  deploy, see Redundancy in README.md; the model builds, and Vespa's Distribution of it names the groups). */
    static VespaModel model(Path dir) throws Exception {
        Files.createDirectories(dir.resolve("schemas"));
        Files.writeString(dir.resolve("schemas/doc.sd"), "schema doc { document doc { field text type string { indexing: index | summary } } }\n");
        Files.writeString(dir.resolve("services.xml"), """
                <services version="1.0">
                  <container id="default" version="1.0"><search/><document-api/></container>
                  <content id="music" version="1.0">
                    <min-redundancy>2</min-redundancy>
                    <documents><document type="doc" mode="index"/></documents>
                    <group>
                      <distribution partitions="1|*"/>
                      <group name="g0" distribution-key="0"><node hostalias="node1" distribution-key="0"/></group>
                      <group name="g1" distribution-key="1"><node hostalias="node1" distribution-key="2"/></group>
                    </group>
                  </content>
                </services>
                """);
        return DwellPackage.model(dir);
    }

    private static ClusterStates states(VespaModel model) {
        Map<String, ClusterStates.Cluster> clusters = ClusterControllers.clusters(model, (cluster, key) -> OptionalLong.of(10L + key));
        return new ClusterStates(() -> clusters);
    }

    /** The answer's body as a client reads it. */
    private static JsonNode get(ClusterStates states, String path, String recursive, int status) {
        ClusterStates.Answer answer = states.answer("GET", path, recursive);
        assertEquals(status, answer.status(), answer.body().toString());
        try {
            return json.readTree(answer.body().toString());
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theModelsClusterControllerIsOnItsHttpPort(@TempDir Path dir) throws Exception {
        List<ClusterControllers.Controller> controllers = ClusterControllers.controllers(model(dir));
        assertEquals(1, controllers.size());
        assertEquals(0, controllers.get(0).index());
        assertEquals(19050, controllers.get(0).port());
    }

    @Test
    void clustersServicesAndNodesAreListedAndEveryConfiguredNodeIsUp(@TempDir Path dir) throws Exception {
        ClusterStates states = states(model(dir));
        assertEquals(json.readTree("{\"cluster\":{\"music\":{\"link\":\"/cluster/v2/music\"}}}"), get(states, "/cluster/v2/", null, 200));
        assertEquals(get(states, "/cluster/v2/", null, 200), get(states, "/cluster/v2", null, 200));
        // Vespa's ClusterState serializes the state: distribution key 1 is configured for no node, so down
        String state = "version:1 distributor:3 .1.s:d storage:3 .1.s:d";
        assertEquals(json.readTree("""
                {"state":{"generated":{"state":"up","reason":""}},
                 "metrics":{"cluster-buckets-out-of-sync-ratio":0.0},
                 "service":{"storage":{"link":"/cluster/v2/music/storage"},"distributor":{"link":"/cluster/v2/music/distributor"}},
                 "distribution-states":{"published":{"baseline":"%s","bucket-spaces":[{"name":"default","state":"%s"},{"name":"global","state":"%s"}]}}}
                """.formatted(state, state, state)), get(states, "/cluster/v2/music", null, 200));
        assertEquals(json.readTree("{\"node\":{\"0\":{\"link\":\"/cluster/v2/music/distributor/0\"},\"2\":{\"link\":\"/cluster/v2/music/distributor/2\"}}}"),
                     get(states, "/cluster/v2/music/distributor", null, 200));
        assertEquals(json.readTree("""
                {"attributes":{"hierarchical-group":"g1"},
                 "state":{"generated":{"state":"up","reason":""},"unit":{"state":"up","reason":""},"user":{"state":"up","reason":""}},
                 "metrics":{"unique-document-count":12}}
                """), get(states, "/cluster/v2/music/storage/2", null, 200));
        JsonNode distributor = get(states, "/cluster/v2/music/distributor/0", null, 200);
        assertEquals("g0", distributor.at("/attributes/hierarchical-group").asText());
        assertTrue(distributor.path("metrics").isMissingNode(), "distributors have no document count");
    }

    @Test
    void recursiveEmbedsTheUnits(@TempDir Path dir) throws Exception {
        ClusterStates states = states(model(dir));
        JsonNode all = get(states, "/cluster/v2/", "true", 200);
        assertEquals(get(states, "/cluster/v2/music/storage/0", null, 200), all.at("/cluster/music/service/storage/node/0"));
        JsonNode one = get(states, "/cluster/v2/music", "1", 200);
        assertEquals("/cluster/v2/music/storage/2", one.at("/service/storage/node/2/link").asText());
        assertEquals(400, states.answer("GET", "/cluster/v2/music", "x").status());
    }

    @Test
    void unknownUnitsAre404(@TempDir Path dir) throws Exception {
        ClusterStates states = states(model(dir));
        assertEquals("No such resource 'nope'.", get(states, "/cluster/v2/nope", null, 404).get("message").asText());
        assertEquals("No such resource 'music/searchnode'.", get(states, "/cluster/v2/music/searchnode", null, 404).get("message").asText());
        assertEquals("No such resource 'node 1'.", get(states, "/cluster/v2/music/storage/1", null, 404).get("message").asText());
    }

    @Test
    void statesCannotBeSetOverHttp(@TempDir Path dir) throws Exception {
        ClusterStates states = states(model(dir));
        try (ClusterStateApi api = new ClusterStateApi("127.0.0.1", 0, states, new ClusterStatusPages(Map::of, 0, 1))) {
            HttpClient client = HttpClient.newHttpClient();
            URI node = URI.create("http://127.0.0.1:" + api.port() + "/cluster/v2/music/storage/0");
            HttpResponse<String> got = client.send(HttpRequest.newBuilder(node).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, got.statusCode());
            assertEquals("application/json", got.headers().firstValue("Content-Type").orElseThrow());
            assertEquals(get(states, "/cluster/v2/music/storage/0", null, 200), json.readTree(got.body()));
            HttpResponse<String> set = client.send(HttpRequest.newBuilder(node).PUT(HttpRequest.BodyPublishers.ofString(
                    "{\"state\":{\"user\":{\"state\":\"maintenance\",\"reason\":\"test\"}}}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(501, set.statusCode());
            assertEquals(ClusterStates.CANNOT_SET, json.readTree(set.body()).get("message").asText());
            assertEquals(got.body(), client.send(HttpRequest.newBuilder(node).GET().build(), HttpResponse.BodyHandlers.ofString()).body(),
                         "nothing changed");
            URI other = URI.create("http://127.0.0.1:" + api.port() + "/state/v1/health");
            assertEquals(404, client.send(HttpRequest.newBuilder(other).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }

}
