package ai.dwell.runtime.serve.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A package of more entries than any application has is refused before it fills the disk with them; one at the limit unpacks. */
public class ApplicationArchiveTest {

    @TempDir
    Path tmp;

    @Test
    void aPackageOfTooManyEntriesIsRefused() throws IOException {
        InvalidApplicationException e = assertThrows(InvalidApplicationException.class,
                                                     () -> ApplicationArchive.unpack(zip(ApplicationArchive.MAX_ENTRIES + 1), tmp.resolve("too-many")));
        assertTrue(e.getMessage().contains("more than " + ApplicationArchive.MAX_ENTRIES + " entries"), e.getMessage());
        try (var files = Files.walk(tmp.resolve("too-many"))) {
            assertTrue(files.count() <= ApplicationArchive.MAX_ENTRIES + 2, "no more than the limit was unpacked");
        }
        Path root = ApplicationArchive.unpack(zip(ApplicationArchive.MAX_ENTRIES), tmp.resolve("at-the-limit"));
        assertEquals("<services/>", Files.readString(root.resolve("services.xml")));
    }

    /** services.xml and empty files, entries in all. */
    private static byte[] zip(int entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes)) {
            out.putNextEntry(new ZipEntry("services.xml"));
            out.write("<services/>".getBytes(StandardCharsets.UTF_8));
            for (int i = 1; i < entries; i++) out.putNextEntry(new ZipEntry("files/" + i));
        }
        return bytes.toByteArray();
    }

}
