package ai.dwell.runtime.serve.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A package's deployment variants resolved for the runtime's zone, a self-hosted config server's (prod.default, cloud
 * default), by Vespa's own preprocessor: what Vespa Cloud's zones get is dropped, what a self-hosted zone gets kept.
 */
public class PackageVariantsTest {

    private static final String SERVICES = """
            <services version="1.0" xmlns:deploy="vespa" xmlns:preprocess="properties">
              <preprocess:properties>
                <heap>2g</heap>
              </preprocess:properties>
              <container id="c" version="1.0">
                <nodes>
                  <jvm options="-Xmx${heap}"/>
                  <node hostalias="node0"/>
                </nodes>
                <nodes deploy:cloud="aws gcp azure" deploy:environment="test staging prod" count="2">
                  <resources vcpu="2" memory="8Gb" disk="50Gb"/>
                </nodes>
                <search deploy:environment="dev"/>
              </container>
            </services>
            """;

    @TempDir
    Path tmp;

    @Test
    void theSelfHostedVariantIsServed() throws IOException {
        Files.writeString(tmp.resolve("services.xml"), SERVICES);
        PackageVariants.resolve(tmp);
        String resolved = Files.readString(tmp.resolve("services.xml"));
        assertTrue(resolved.contains("<node hostalias=\"node0\"/>"), resolved);
        assertTrue(resolved.contains("-Xmx2g"), "properties substituted: " + resolved);
        assertFalse(resolved.contains("count=\"2\""), "the cloud's nodes dropped: " + resolved);
        assertFalse(resolved.contains("<search"), "the dev zone's element dropped: " + resolved);
        assertFalse(resolved.contains("deploy:"), resolved);

        PackageVariants.resolve(tmp);
        assertEquals(resolved, Files.readString(tmp.resolve("services.xml")), "resolving again changes nothing");
    }

    @Test
    void aPackageWithoutVariantsIsLeftByteForByte() throws IOException {
        String plain = "<services version='1.0' xmlns:deploy='vespa'>\n  <container id='c' version='1.0'/>  <!-- kept -->\n</services>\n";
        Files.writeString(tmp.resolve("services.xml"), plain);
        Files.writeString(tmp.resolve("hosts.xml"), "<hosts><host name='localhost'><alias>node0</alias></host></hosts>");
        PackageVariants.resolve(tmp);
        assertEquals(plain, Files.readString(tmp.resolve("services.xml")));
        assertEquals("<hosts><host name='localhost'><alias>node0</alias></host></hosts>", Files.readString(tmp.resolve("hosts.xml")));
    }

    @Test
    void hostsXmlVariantsToo() throws IOException {
        Files.writeString(tmp.resolve("services.xml"), "<services version='1.0'/>");
        Files.writeString(tmp.resolve("hosts.xml"), """
                <hosts xmlns:deploy="vespa">
                  <host name="localhost"><alias>node0</alias></host>
                  <host name="cloud-only" deploy:cloud="aws"><alias>node1</alias></host>
                </hosts>
                """);
        PackageVariants.resolve(tmp);
        String hosts = Files.readString(tmp.resolve("hosts.xml"));
        assertTrue(hosts.contains("localhost") && ! hosts.contains("cloud-only"), hosts);
    }

    @Test
    void aVariantThatDoesNotParseIsRefusedNamingTheFile() throws IOException {
        Files.writeString(tmp.resolve("services.xml"),
                          "<services version='1.0' xmlns:deploy='vespa'><container id='c' deploy:environment='nowhere'/></services>");
        InvalidApplicationException e = assertThrows(InvalidApplicationException.class, () -> PackageVariants.resolve(tmp));
        assertTrue(e.getMessage().startsWith("Could not preprocess services.xml for the zone prod.default"), e.getMessage());
    }

}
