package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * dwell's package served with --shards 1: the working copy (with the runtime's http section) has one
 * content node, and the container keeps the package's port. Vespa's getSearchPort refuses to answer for a
 * container with an http section, which made every deploy with --shards fail.
 */
public class ServedShardsTest {

    @Test
    void oneContentNodeAndThePackagesContainerPort(@TempDir Path work) throws Exception {
        VespaModel original = ModelBuilder.build(DwellPackage.dir()).model();
        PackageServices declared = PackageServices.of(original, DwellPackage.dir());
        Path served = ServedPackage.prepare(DwellPackage.dir(), work.resolve("served"), 1, original, declared);
        assertTrue(Files.readString(served.resolve("services.xml")).contains("<http"), "the working copy has an http section");
        PackageServices services = PackageServices.of(ModelBuilder.build(served).model(), DwellPackage.dir());
        assertEquals(declared.containerPort(), services.containerPort());
        assertEquals(1, services.contentNodes().size());
        assertEquals(3, declared.contentNodes().size());
    }

}
