package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.serve.feed.FeedBlock;
import com.yahoo.vespa.config.content.FleetcontrollerConfig;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.content.StorageNode;
import com.yahoo.vespa.model.content.cluster.ContentCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The feed block of each content cluster of a model, by the document types it holds: the disk limit and noise level
 * the model gives the cluster controller (FleetcontrollerConfig, from {@code <tuning><resource-limits>}), applied to
 * the disk the runtime keeps its data on, which all its content nodes share.
 */
public final class FeedBlocks {

    /** How often a write samples the disk's usage at most. */
    static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private FeedBlocks() {}

    public static Map<String, FeedBlock> of(VespaModel model, Path dataDirectory) {
        DoubleSupplier usage = diskUsage(dataDirectory);
        Map<String, FeedBlock> blocks = new HashMap<>();
        for (ContentCluster cluster : model.getContentClusters().values()) {
            FleetcontrollerConfig.Builder builder = new FleetcontrollerConfig.Builder();
            cluster.getClusterControllerConfig().getConfig(builder);
            FleetcontrollerConfig config = new FleetcontrollerConfig(builder);
            List<StorageNode> nodes = cluster.getRootGroup().recursiveGetNodes();
            if (nodes.isEmpty() || ! config.enable_cluster_feed_block()) continue;
            FeedBlock block = new FeedBlock(cluster.getName(),
                                            nodes.stream().map(StorageNode::getDistributionKey).sorted().toList(),
                                            nodes.get(0).getHostName(),
                                            config.cluster_feed_block_limit().getOrDefault("disk", 1.0),
                                            config.cluster_feed_block_noise_level(),
                                            usage, System::nanoTime, SAMPLE_NANOS);
            for (var type : cluster.getDocumentDefinitions().values()) blocks.put(type.getName(), block);
        }
        return blocks;
    }

    /**
     * The used share of the file system the directory is on, as df reports it: used / (used + available), where used
     * is what is not free. Blocks the file system reserves (for root, say) count as neither, as they are not there to
     * write to: 1 - available / total would call a disk with a large reserve full while it is mostly empty.
     */
    static DoubleSupplier diskUsage(Path directory) {
        FileStore store;
        try {
            store = Files.getFileStore(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read the disk usage of " + directory, e);
        }
        return () -> {
            try {
                long used = store.getTotalSpace() - store.getUnallocatedSpace(), available = store.getUsableSpace();
                return used + available <= 0 ? 0.0 : (double) used / (used + available);
            }
            catch (IOException e) {
                throw new UncheckedIOException("Cannot read the disk usage of " + directory, e);
            }
        };
    }

}
