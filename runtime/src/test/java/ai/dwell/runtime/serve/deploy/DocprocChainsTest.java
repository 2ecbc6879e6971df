package ai.dwell.runtime.serve.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The docproc chains a write passes through, as Vespa routes it: the container's chain named "default" first (on the
 * default route), then the chain the content cluster names for indexing.
 */
public class DocprocChainsTest {

    @TempDir
    Path tmp;

    @Test
    void theChainTheContentClusterNames() throws IOException {
        assertEquals(Map.of("comment", List.of("comments"), "author", List.of("comments")),
                     chains("<chain id='comments' inherits='indexing'/>", "<document-processing cluster='c' chain='comments'/>"));
    }

    @Test
    void aChainNamedDefaultRunsForEveryWrite() throws IOException {
        assertEquals(Map.of("comment", List.of("default"), "author", List.of("default")),
                     chains("<chain id='default'><documentprocessor id='p'/></chain>", ""));
        assertEquals(Map.of("comment", List.of("default", "comments"), "author", List.of("default", "comments")),
                     chains("<chain id='default'/><chain id='comments' inherits='indexing'/>", "<document-processing chain='comments'/>"));
    }

    @Test
    void noChainsNoRoute() throws IOException {
        assertEquals(Map.of(), chains("", ""));
        assertEquals(Map.of(), chains("<chain id='other'/>", "<document-processing/>"));
    }

    @Test
    void aDocumentSelectionIsRefusedNamingIt() throws IOException {
        chains("", ""); // writes services.xml without a selection
        PackageServices.refuseDocumentSelections(tmp.resolve("services.xml"));
        String withSelection = Files.readString(tmp.resolve("services.xml"))
                                    .replace("<document type=\"comment\" mode=\"index\"/>", "<document type=\"comment\" mode=\"index\" selection=\"comment.upvotes > 3\"/>");
        Files.writeString(tmp.resolve("services.xml"), withSelection);
        InvalidApplicationException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidApplicationException.class,
                () -> PackageServices.refuseDocumentSelections(tmp.resolve("services.xml")));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("'comment' (selection='comment.upvotes > 3')"), e.getMessage());
    }

    private Map<String, List<String>> chains(String containerChains, String contentProcessing) throws IOException {
        Path services = tmp.resolve("services.xml");
        Files.writeString(services, """
                <services version="1.0">
                    <container id="c" version="1.0">
                        <document-api/>
                        %s
                    </container>
                    <content id="dwell" version="1.0">
                        <documents>
                            <document type="comment" mode="index"/>
                            <document type="author" mode="index" global="true"/>
                            %s
                        </documents>
                    </content>
                </services>
                """.formatted(containerChains.isEmpty() ? "" : "<document-processing>" + containerChains + "</document-processing>", contentProcessing));
        return PackageServices.docprocChains(services);
    }

}
