package ai.dwell.runtime.serve.container;

import com.yahoo.config.ConfigInstance;
import com.yahoo.vespa.config.search.DispatchConfig;

/**
 * The one config value the runtime serves its containers differently from Vespa's model: the dispatcher's warm-up.
 * Vespa's config model gives every indexed content cluster's dispatcher {@code warmuptime 5.0}: its constructor spends
 * five seconds compressing with LZ4 on a thread of its own, so that the JIT has compiled the compressor before the RPC
 * path to remote content nodes needs it. The runtime's dispatcher hands each request to a content node in the same JVM
 * (the runtime's {@code RpcClient}), so those five seconds of one core bought nothing here, yet every start and every
 * deployment paid them before its container answered (measured: 5.0 s of an 8 s deployment of tests/apps/music).
 * The warm-up is set to {@link #SECONDS}; nothing else in the config changes, and the dispatcher still waits for its
 * first ping of every node before it is constructed, as Vespa's does.
 */
public final class DispatchWarmup {

    /** The warm-up the runtime's dispatchers get. */
    public static final double SECONDS = 0.0;

    private DispatchWarmup() {}

    /** Sets the warm-up of a dispatch config builder, filled from the model; any other builder is left as it is. */
    public static void adjust(ConfigInstance.Builder builder) {
        if (builder instanceof DispatchConfig.Builder dispatch) dispatch.warmuptime(SECONDS);
    }

}
