package ai.dwell.runtime.serve.container;

import com.yahoo.application.Application;
import com.yahoo.application.Networking;
import com.yahoo.application.container.JDisc;
import com.yahoo.language.Linguistics;
import com.yahoo.language.opennlp.OpenNlpLinguistics;
import com.yahoo.language.process.Embedder;
import com.yahoo.language.process.FieldGenerator;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Vespa's real JDisc container, running one application package in this JVM: its HTTP server,
 * search chains, query profiles, renderers, docproc chains and the package's own bundles
 * (components/*.jar). The content nodes it talks to are ours (see the rpc package).
 */
public class ContainerHost implements AutoCloseable {

    private static final Logger log = Logger.getLogger(ContainerHost.class.getName());

    private final Application application;
    private final String clusterId;
    private final com.yahoo.container.Container own; // the process-wide instance its application configured

    private ContainerHost(Application application, String clusterId, com.yahoo.container.Container own) {
        this.application = application;
        this.clusterId = clusterId;
        this.own = own;
    }

    /** Starts the container cluster of the package in this directory, serving HTTP as services.xml says. */
    public static ContainerHost start(Path applicationDir, String clusterId) {
        long start = System.nanoTime();
        Application application = Application.fromApplicationPackage(applicationDir, Networking.enable);
        log.info("Container '" + clusterId + "' of " + applicationDir + " started in " +
                 (System.nanoTime() - start) / 1_000_000 + " ms");
        return new ContainerHost(application, clusterId, com.yahoo.container.Container.get());
    }

    public JDisc jdisc() { return application.getJDisc(clusterId); }

    /**
     * The container's linguistics, the one it injects into its components (see {@link InjectedLinguistics}), so that
     * documents are tokenized and stemmed as queries are.
     */
    public Linguistics linguistics() {
        for (Object component : jdisc().components().allComponents())
            if (component instanceof InjectedLinguistics injected) return injected.linguistics();
        for (Object component : jdisc().components().allComponents())
            if (component instanceof Linguistics linguistics) return linguistics;
        return new OpenNlpLinguistics();
    }

    /** The container's embedder components by id, as Vespa's IndexingProcessor gets them injected. */
    public Map<String, Embedder> embedders() {
        Map<String, Embedder> embedders = new LinkedHashMap<>();
        jdisc().components().allComponentsById().forEach((id, component) -> {
            if (component instanceof Embedder embedder) embedders.put(id.stringValue(), embedder);
        });
        return embedders;
    }

    /** The container's field generator components by id, as Vespa's IndexingProcessor gets them injected. */
    public Map<String, FieldGenerator> fieldGenerators() {
        Map<String, FieldGenerator> generators = new LinkedHashMap<>();
        jdisc().components().allComponentsById().forEach((id, component) -> {
            if (component instanceof FieldGenerator generator) generators.put(id.stringValue(), generator);
        });
        return generators;
    }

    public String clusterId() { return clusterId; }

    @Override
    public void close() {
        // its application shuts down the file acquirer of the process-wide instance: its own, where several containers
        // each configured one (ContainerHosts)
        com.yahoo.container.Container.bindToCurrentThread(own);
        try { application.close(); }
        finally { com.yahoo.container.Container.bindToCurrentThread(null); }
    }

}
