package ai.dwell.runtime.serve.state;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClusterStatusPagesTest {

    private static final Pattern ROW = Pattern.compile("<tr>(<td>.*?)</tr>");

    /** The model of ClusterStatesTest: cluster music, nodes 0 and 2 in groups g0 and g1, holding 10 and 12 documents. */
    private static ClusterStatusPages pages(Path dir, int controller, int controllers) throws Exception {
        Map<String, ClusterStates.Cluster> clusters = ClusterControllers.clusters(ClusterStatesTest.model(dir), (cluster, key) -> OptionalLong.of(10L + key));
        return new ClusterStatusPages(() -> clusters, controller, controllers);
    }

    /** Each table row's cells, in order. */
    private static List<List<String>> rows(String html) {
        List<List<String>> rows = new ArrayList<>();
        Matcher row = ROW.matcher(html);
        while (row.find()) {
            String cells = row.group(1);
            rows.add(List.of(cells.substring("<td>".length(), cells.length() - "</td>".length()).split("</td><td>", -1)));
        }
        return rows;
    }

    @Test
    void theClusterPageShowsTheStatesAndEveryNode(@TempDir Path dir) throws Exception {
        ClusterStatusPages.Page page = pages(dir, 0, 1).page("/clustercontroller-status/v1/music");
        assertEquals(200, page.status());
        assertTrue(page.html().contains("<title>Cluster controller status page - music</title>"), page.html());
        assertTrue(page.html().contains("This cluster controller (index 0) is the master, of 1 controllers"), page.html());
        String state = "version:1 distributor:3 .1.s:d storage:3 .1.s:d"; // Vespa's ClusterState: key 1 is configured for no node
        assertEquals(List.of(List.of("1", "baseline", state), List.of("1", "default", state), List.of("1", "global", state),
                             List.of("distributor", "0", "g0", "up", "up", "up", ""),
                             List.of("distributor", "2", "g1", "up", "up", "up", ""),
                             List.of("storage", "0", "g0", "up", "up", "up", "10"),
                             List.of("storage", "2", "g1", "up", "up", "up", "12")),
                     rows(page.html()));
    }

    @Test
    void anotherControllerNamesTheMaster(@TempDir Path dir) throws Exception {
        String html = pages(dir, 2, 3).page("/clustercontroller-status/v1/music/").html();
        assertTrue(html.contains("This cluster controller (index 2) is not the master; the master is cluster controller 0, of 3 controllers"), html);
    }

    @Test
    void theListLinksEachClusterAndUnknownPagesAre404(@TempDir Path dir) throws Exception {
        ClusterStatusPages pages = pages(dir, 0, 1);
        for (String path : List.of("/clustercontroller-status/v1", "/clustercontroller-status/v1/")) {
            ClusterStatusPages.Page list = pages.page(path);
            assertEquals(200, list.status());
            assertTrue(list.html().contains("<li><a href=\"/clustercontroller-status/v1/music\">music</a></li>"), list.html());
        }
        assertEquals(404, pages.page("/clustercontroller-status/v1/nope").status());
        assertEquals(404, pages.page("/clustercontroller-status/v1/music/storage").status());
        assertTrue(pages.page("/clustercontroller-status/v1/<b>").html().contains("No such page: /clustercontroller-status/v1/&lt;b&gt;"));
    }

    @Test
    void servedAsHtmlOnTheControllersPort(@TempDir Path dir) throws Exception {
        ClusterStatusPages pages = pages(dir, 0, 1);
        Map<String, ClusterStates.Cluster> none = Map.of();
        try (ClusterStateApi api = new ClusterStateApi("127.0.0.1", 0, new ClusterStates(() -> none), pages)) {
            HttpClient client = HttpClient.newHttpClient();
            URI page = URI.create("http://127.0.0.1:" + api.port() + "/clustercontroller-status/v1/music");
            HttpResponse<String> got = client.send(HttpRequest.newBuilder(page).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, got.statusCode());
            assertEquals("text/html; charset=utf-8", got.headers().firstValue("Content-Type").orElseThrow());
            assertEquals(pages.page("/clustercontroller-status/v1/music").html(), got.body());
            HttpResponse<String> post = client.send(HttpRequest.newBuilder(page).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                                                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
            URI nope = URI.create("http://127.0.0.1:" + api.port() + "/clustercontroller-status/v1/nope");
            assertEquals(404, client.send(HttpRequest.newBuilder(nope).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        }
    }

}
