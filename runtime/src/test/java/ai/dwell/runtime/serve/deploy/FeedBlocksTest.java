package ai.dwell.runtime.serve.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The disk usage a feed block compares with its limit is df's: used over used and available, so that blocks the file
 * system reserves (for root, say) do not make a mostly empty disk look full. This machine's disk has such a reserve:
 * 1 - available / total was 75% here while df said 32%, and every write was refused.
 */
public class FeedBlocksTest {

    @Test
    void diskUsageIsUsedOverUsedAndAvailable(@TempDir Path directory) throws Exception {
        var store = Files.getFileStore(directory);
        long used = store.getTotalSpace() - store.getUnallocatedSpace(), available = store.getUsableSpace();
        assertEquals((double) used / (used + available), FeedBlocks.diskUsage(directory).getAsDouble(), 0.01);
    }

}
