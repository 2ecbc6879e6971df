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
