package ai.dwell.runtime;

import ai.dwell.runtime.rank.CellMath;
import ai.dwell.runtime.serve.access.WriteAccess;
import ai.dwell.runtime.serve.DataDirectory;
import ai.dwell.runtime.serve.Runtime;
import ai.dwell.runtime.serve.configserver.ConfigServer;
import ai.dwell.runtime.serve.metrics.ContainerMetrics;
import ai.dwell.runtime.serve.metrics.ContentMetrics;
import ai.dwell.runtime.serve.metrics.MetricsProxy;
import ai.dwell.runtime.serve.metrics.ModelConsumers;
import ai.dwell.runtime.serve.container.LocalHosts;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts dwell's local runtime: the config server API on 19071, and the last deployed
 * application, if any, with its data.
 *
 * <pre>java ... ai.dwell.runtime.Main --data DIR [--config-port 19071] [--shards N] [--bind ADDRESS] [--token-file FILE] [APPLICATION_DIR]</pre>
 *
 * --shards (or DWELL_SHARDS) serves each content cluster with N content nodes instead of the ones
 * the package declares.
 *
 * The JVM must run with -Djdk.net.hosts.file=DIR/hosts (see LocalHosts) and VESPA_HOME=DIR.
 */
public class Main {

    private static final Logger log = Logger.getLogger(Main.class.getName());

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of("data");
        int configPort = 19071;
        Path deploy = null;
        int shards = Integer.parseInt(System.getenv().getOrDefault("DWELL_SHARDS", "0"));
        String bind = null;
        Path tokenFile = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> dataDir = Path.of(args[++i]);
                case "--config-port" -> configPort = Integer.parseInt(args[++i]);
                case "--shards" -> shards = Integer.parseInt(args[++i]);
                case "--bind" -> bind = args[++i];
                case "--token-file" -> tokenFile = Path.of(args[++i]);
                default -> deploy = Path.of(args[i]);
            }
        }
        // The hosts file changes with each deploy: do not cache lookups, found or not
        java.security.Security.setProperty("networkaddress.cache.ttl", "0");
        java.security.Security.setProperty("networkaddress.cache.negative.ttl", "0");
        // Vespa's indexing of annotated strings warns once per document; it is expected here
        Logger.getLogger("com.yahoo.document.datatypes.StringFieldValue").setLevel(Level.SEVERE);
        CellMath.warmUpInBackground();
        DataDirectory data = new DataDirectory(dataDir);
        LocalHosts hosts = LocalHosts.fromSystemProperty();
        if (hosts != null) hosts.write(List.of(), List.of());

        WriteAccess access = WriteAccess.of(bind, tokenFile, System.getenv("DWELL_TOKEN"));
        WriteAccess.use(access);
        log.info(access.loopbackOnly() ? "Serving this machine only (loopback)"
                                       : "Serving " + access.bind().getHostAddress() + "; writes from other machines " +
                                         (access.token().isPresent() ? "need the bearer token" : "are refused (no token)"));
        Runtime runtime = new Runtime(data, hosts, shards);
        ConfigServer configServer = new ConfigServer(configPort, runtime, access);
        // where the container's /metrics/v2/values and /prometheus/v1/values look, as for Vespa's metrics proxy: localhost,
        // which the runtime's hosts file may give any loopback address, so every address, answering loopback only
        MetricsProxy metricsProxy = new MetricsProxy("0.0.0.0", MetricsProxy.PORT, "localhost",
                                                     MetricsProxy.all(new ContainerMetrics(() -> java.net.URI.create("http://localhost:" + runtime.containerPort() + "/state/v1/metrics")),
                                                                      new ContentMetrics(runtime::contentServing)),
                                                     new ModelConsumers(runtime::servingModel));
        CountDownLatch stopped = new CountDownLatch(1);
        java.lang.Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("Stopping");
            metricsProxy.close();
            configServer.close();
            runtime.close();
            stopped.countDown();
        }, "shutdown"));

        try {
            if (deploy != null) runtime.deploy(deploy);
            else runtime.recover();
        }
        catch (RuntimeException e) { // keep the config server up, so a fixed package can be deployed
            log.log(Level.SEVERE, "Could not serve the application: " + e.getMessage(), e);
        }
        log.info("dwell runtime ready: config server on " + configServer.port() + ", data in " + data.root());
        stopped.await();
    }

}
