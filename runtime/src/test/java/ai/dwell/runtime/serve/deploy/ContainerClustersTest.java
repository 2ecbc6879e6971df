package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.container.OwnContainerFilter;
import com.yahoo.text.XML;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A package with several container clusters (tests/apps/two-containers, as sample-apps' multinode-HA: `feed` with
 * document-api and document-processing, `query` with search): each is served as a container of its own, on its own port
 * (8080, 8081, ... in services.xml's order where Vespa's model gives them the same), with the handlers Vespa's model gives
 * that cluster only; writes are processed in the cluster the content cluster names, searches dispatched from the one
 * with search. (tests/apps/two-containers' feed cluster has a docproc chain of the package's bundle; Vespa's model does
 * not need the bundle, so the package is read here without building it.)
 */
public class ContainerClustersTest {

    private static final Path TWO = DwellPackage.root().resolve("tests/apps/two-containers/src/main/application");

    @Test
    void eachClusterWithItsPortAndWhatItServes() {
        PackageServices services = PackageServices.of(ModelBuilder.build(TWO).model(), TWO);
        assertEquals(List.of(new PackageServices.ContainerSpec("feed", 8080, false, true, true),
                             new PackageServices.ContainerSpec("query", 8081, true, false, false)),
                     services.containers());
        assertEquals("feed", services.containerCluster(), "the content cluster's document-processing cluster");
        assertEquals(Map.of("item", List.of("stamp")), services.docprocChainsOfType(), "its chain, in feed");
        assertEquals(8080, services.containerPort());
        assertEquals("query", services.searchCluster());
        assertEquals("container cluster 'query' on localhost:8081 (search)", services.containers().get(1).describe());
    }

    @Test
    void aPortTakenByAnEarlierClusterGivesTheLowestNoClusterHasOrDeclares(@TempDir Path app) throws IOException {
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                  <admin version="2.0"><adminserver hostalias="h1"/></admin>
                  <container id="a" version="1.0"><nodes><node hostalias="h1"/></nodes></container>
                  <container id="b" version="1.0"><nodes><node hostalias="h2"/></nodes></container>
                  <container id="c" version="1.0"><http><server id="s" port="8081"/></http><nodes><node hostalias="h3"/></nodes></container>
                  <container id="d" version="1.0"><http><server id="s" port="9000"/></http><nodes><node hostalias="h4"/></nodes></container>
                </services>
                """);
        writeHosts(app, 4);
        assertEquals(Map.of("a", 8080, "b", 8082, "c", 8081, "d", 9000), PackageServices.ports(ModelBuilder.build(app).model()));
    }

    @Test
    void contentClustersProcessedInDifferentContainerClustersAreRefusedNamingThem(@TempDir Path app) throws IOException {
        Files.createDirectories(app.resolve("schemas"));
        for (String type : List.of("one", "two"))
            Files.writeString(app.resolve("schemas/" + type + ".sd"), "schema " + type + " { document " + type + " { field f type string { indexing: summary } } }");
        Files.writeString(app.resolve("services.xml"), """
                <services version="1.0">
                  <admin version="2.0"><adminserver hostalias="h1"/></admin>
                  <container id="a" version="1.0"><document-api/><document-processing/><nodes><node hostalias="h1"/></nodes></container>
                  <container id="b" version="1.0"><search/><document-processing/><nodes><node hostalias="h2"/></nodes></container>
                  <content id="c1" version="1.0"><redundancy>1</redundancy>
                    <documents><document type="one" mode="index"/><document-processing cluster="a"/></documents>
                    <nodes><node hostalias="h3" distribution-key="0"/></nodes></content>
                  <content id="c2" version="1.0"><redundancy>1</redundancy>
                    <documents><document type="two" mode="index"/><document-processing cluster="b"/></documents>
                    <nodes><node hostalias="h3" distribution-key="0"/></nodes></content>
                </services>
                """);
        writeHosts(app, 3);
        VespaModel model = ModelBuilder.build(app).model();
        var e = org.junit.jupiter.api.Assertions.assertThrows(InvalidApplicationException.class, () -> PackageServices.of(model, app));
        assertTrue(e.getMessage().contains("processes every write in one container cluster") && e.getMessage().contains("{c1=a, c2=b}"),
                   e.getMessage());
    }

    @Test
    void oneClusterKeepsItsPortAndItsWorkingCopy(@TempDir Path work) throws IOException {
        VespaModel model = ModelBuilder.build(DwellPackage.dir()).model();
        PackageServices services = PackageServices.of(model, DwellPackage.dir());
        assertEquals(1, services.containers().size());
        assertEquals(8080, services.containerPort());
        assertEquals(services.containerCluster(), services.searchCluster());
        Path served = ServedPackage.prepare(DwellPackage.dir(), work.resolve("served"), 0, model, services);
        assertFalse(Files.readString(served.resolve("services.xml")).contains(OwnContainerFilter.class.getName()));
    }

    @Test
    void eachClustersPackageHasItsOwnContainerWithItsOwnHandlers(@TempDir Path work) throws IOException {
        VespaModel model = ModelBuilder.build(TWO).model();
        PackageServices declared = PackageServices.of(model, TWO);
        Path served = ServedPackage.prepare(TWO, work.resolve("served"), 0, model, declared);
        String servedXml = Files.readString(served.resolve("services.xml"));
        assertTrue(servedXml.contains("<document-processing cluster=\"feed\"/>"), "writes still processed in feed: " + servedXml);

        // the working copy's model gives each cluster the same port again (its http servers now declare them)
        PackageServices again = PackageServices.of(ModelBuilder.build(served).model(), TWO);
        assertEquals(declared.containers(), again.containers());
        assertEquals("feed", again.containerCluster());

        Path feed = ServedPackage.forCluster(served, work.resolve("feed"), "feed");
        Path query = ServedPackage.forCluster(served, work.resolve("query"), "query");
        assertEquals(List.of("feed"), containerIds(feed));
        assertEquals(List.of("query"), containerIds(query));
        String feedXml = Files.readString(feed.resolve("services.xml"));
        String queryXml = Files.readString(query.resolve("services.xml"));
        assertTrue(feedXml.contains("http://*:8080/document/v1/*") && ! feedXml.contains("/search/*"), feedXml);
        assertTrue(queryXml.contains("http://*:8081/search/*") && ! queryXml.contains("/document/v1/"), queryXml);
        assertTrue(feedXml.contains("port=\"8080\"") && queryXml.contains("port=\"8081\""));
        // each binds the threads serving its requests to its own process-wide Container instance
        assertTrue(feedXml.contains(OwnContainerFilter.class.getName()) && queryXml.contains(OwnContainerFilter.class.getName()));
        assertFalse(feedXml.contains("<document-processing cluster") && ! feedXml.contains("cluster=\"feed\""));
        assertFalse(queryXml.contains("<document-processing cluster"), "the content cluster's processing in feed, which query's package has not");
        assertEquals(Files.readString(served.resolve("schemas/item.sd")), Files.readString(query.resolve("schemas/item.sd")));
        assertFalse(Files.readString(TWO.resolve("services.xml")).contains("/search/*"), "the deployed package is unchanged");
    }

    private static List<String> containerIds(Path app) throws IOException {
        return XML.getChildren(XML.getDocument(Files.readString(app.resolve("services.xml"))).getDocumentElement(), "container")
                  .stream().map(element -> element.getAttribute("id")).toList();
    }


    /** hosts.xml with hosts a.local, b.local, ... of aliases h1, h2, ... */
    private static void writeHosts(Path app, int count) throws IOException {
        StringBuilder hosts = new StringBuilder("<hosts>\n");
        for (int i = 0; i < count; i++)
            hosts.append("  <host name=\"").append((char) ('a' + i)).append(".local\"><alias>h").append(i + 1).append("</alias></host>\n");
        Files.writeString(app.resolve("hosts.xml"), hosts.append("</hosts>\n").toString());
    }

}
