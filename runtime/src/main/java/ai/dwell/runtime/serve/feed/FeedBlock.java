package ai.dwell.runtime.serve.feed;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Vespa's feed block for one content cluster: when the disk of a content node is fuller than the cluster's limit
 * ({@code <tuning><resource-limits><disk>}, 0.75 by default, as the cluster controller gets it in
 * FleetcontrollerConfig's cluster_feed_block_limit), external writes are refused until usage is back below the
 * limit less the noise level (cluster_feed_block_noise_level): hysteresis, so that feeding does not flip on and off
 * near the limit. The runtime's content nodes share one disk, the data directory's, so all of them are over the
 * limit together; the description names them as the cluster controller does, at most three and a count.
 *
 * <p>Usage is sampled at most every {@code sampleNanos}, on the writing thread (a statvfs call), so a write pays
 * nothing more most of the time and a block takes effect within that interval.
 */
public final class FeedBlock {

    private static final Logger log = Logger.getLogger(FeedBlock.class.getName());

    private final String cluster;
    private final List<Integer> nodes;
    private final String host;
    private final double limit;
    private final double noiseLevel;
    private final DoubleSupplier diskUsage;
    private final LongSupplier nanoClock;
    private final long sampleNanos;

    private final Object lock = new Object();
    private volatile long sampledAt;
    private volatile boolean sampled = false;
    private volatile String blockedBecause = null;

    /**
     * @param nodes      the distribution keys of the cluster's content nodes
     * @param limit      the disk usage (0..1) above which feed is blocked
     * @param noiseLevel how far below the limit usage must be to unblock
     * @param diskUsage  the used share (0..1) of the disk the content nodes keep their data on
     */
    public FeedBlock(String cluster, List<Integer> nodes, String host, double limit, double noiseLevel,
                     DoubleSupplier diskUsage, LongSupplier nanoClock, long sampleNanos) {
        if (nodes.isEmpty()) throw new IllegalArgumentException("Content cluster '" + cluster + "' has no nodes");
        this.cluster = cluster;
        this.nodes = List.copyOf(nodes);
        this.host = host;
        this.limit = limit;
        this.noiseLevel = noiseLevel;
        this.diskUsage = diskUsage;
        this.nanoClock = nanoClock;
        this.sampleNanos = sampleNanos;
    }

    /** Why external feed is blocked now, as the distributors say it ("External feed is blocked ..."), or empty if it is not. */
    public Optional<String> blocked() {
        long now = nanoClock.getAsLong();
        if (sampled && now - sampledAt < sampleNanos) return Optional.ofNullable(blockedBecause); // most writes: no lock
        synchronized (lock) {
            if ( ! sampled || now - sampledAt >= sampleNanos) {
                sampled = true;
                sampledAt = now;
                update(diskUsage.getAsDouble());
            }
        }
        return Optional.ofNullable(blockedBecause);
    }

    private void update(double usage) {
        boolean wasBlocked = blockedBecause != null;
        double effectiveLimit = wasBlocked ? Math.max(limit - noiseLevel, 0.0) : limit;
        if (usage > effectiveLimit) {
            blockedBecause = "External feed is blocked due to resource exhaustion: in content cluster '" + cluster + "': " + describe(usage, wasBlocked);
            if ( ! wasBlocked) log.warning(blockedBecause);
        }
        else if (wasBlocked) {
            blockedBecause = null;
            log.info("External feed to content cluster '" + cluster + "' is no longer blocked: disk is " + percent(usage) + " full");
        }
    }

    private String describe(double usage, boolean lowered) {
        List<String> exhausted = new ArrayList<>();
        for (int i = 0; i < Math.min(3, nodes.size()); i++)
            exhausted.add("disk on node " + nodes.get(i) + " [" + host + "] is " + percent(usage) + " full (the configured limit is " + percent(limit) +
                          (lowered ? ", effective limit lowered to " + percent(Math.max(limit - noiseLevel, 0.0)) + " until feed unblocked" : "") + ")");
        String description = String.join(", ", exhausted);
        if (nodes.size() > 3) description += " (... and " + (nodes.size() - 3) + " more)";
        return description;
    }

    private static String percent(double share) { return String.format(java.util.Locale.ROOT, "%.1f%%", share * 100); }

}
