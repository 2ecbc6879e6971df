package com.yahoo.container;

import com.yahoo.component.AbstractComponent;
import com.yahoo.component.provider.ComponentRegistry;
import com.yahoo.filedistribution.fileacquirer.FileAcquirer;
import com.yahoo.filedistribution.fileacquirer.FileAcquirerFactory;
import com.yahoo.jdisc.handler.RequestHandler;
import com.yahoo.jdisc.service.ClientProvider;
import com.yahoo.jdisc.service.ServerProvider;
import com.yahoo.vespa.config.ConfigTransformer;
import com.yahoo.vespa.config.UrlDownloader;

import java.util.concurrent.TimeUnit;

/**
 * The runtime's own class in the place of container-disc's holder of this name (earlier on the class path, as
 * VespaDocumentAccess and LocalFileDb; written for the runtime, with the methods Vespa 8.700.24's container calls).
 *
 * Vespa's container keeps what its application configured (the handler, client, server and component registries, the
 * file acquirer and URL downloader its configs resolve through) in one instance per process, and a few of its handlers
 * read it while they serve (the root and /ApplicationStatus list the registered handlers). The runtime serves each
 * container cluster of a package by a container of its own in one process (ai.dwell.runtime.serve.container.ContainerHosts):
 * {@link #resetInstance} before each further container starts gives each an instance, and a thread bound to one
 * ({@link #bindToCurrentThread}: the threads serving a container's requests, see
 * ai.dwell.runtime.serve.container.OwnContainerFilter, and the thread closing it) gets that one from {@link #get};
 * any other thread gets the instance made last, as with Vespa's class.
 */
public class Container {

    private static volatile Container latest = new Container();
    private static final ThreadLocal<Container> bound = new ThreadLocal<>();

    private volatile ComponentRegistry<RequestHandler> requestHandlers;
    private volatile ComponentRegistry<ClientProvider> clientProviders;
    private volatile ComponentRegistry<ServerProvider> serverProviders;
    private volatile ComponentRegistry<AbstractComponent> components;
    private volatile FileAcquirer files;
    private volatile boolean filesGivenByCaller;
    private volatile UrlDownloader urls;
    private volatile boolean urlsDisabled;
    private volatile boolean applyOnRestart;

    /** The instance of the container the calling thread is bound to, else the one made last. */
    public static Container get() {
        Container own = bound.get();
        return own != null ? own : latest;
    }

    /** A fresh instance for the next container to configure (the standalone container calls this as it starts one). */
    public static void resetInstance() { latest = new Container(); }

    /** dwell: {@link #get()} answers this instance on the calling thread from now on; null unbinds it. */
    public static void bindToCurrentThread(Container container) {
        if (container != null) bound.set(container);
        else bound.remove();
    }

    /** Stops what this instance started to fetch files and URLs. */
    public void shutdown() {
        FileAcquirer acquirer = files;
        if (acquirer != null) acquirer.shutdown();
        UrlDownloader downloader = urls;
        if (downloader != null) downloader.shutdown();
    }

    /** Files of the application package, which path and model configs name: a new acquirer, unless the caller gave one. */
    public void setupFileAcquirer() {
        if (filesGivenByCaller) return;
        files = FileAcquirerFactory.create();
        resolvePathsWith(files);
    }

    /** Files of the application package come from this acquirer; it can be given once. */
    public void setCustomFileAcquirer(FileAcquirer acquirer) {
        if (files != null)
            throw new IllegalStateException("The file acquirer is set already (" + files + "), cannot set it to " + acquirer);
        filesGivenByCaller = true;
        files = acquirer;
        resolvePathsWith(acquirer);
    }

    public FileAcquirer getFileAcquirer() { return files; }

    /** Configs' url fields are downloaded by a new downloader, unless {@link #disableUrlDownloader} was called. */
    public void setupUrlDownloader() {
        if (urlsDisabled) return;
        urls = new UrlDownloader();
        ConfigTransformer.setUrlDownloader(urls);
    }

    public void disableUrlDownloader() { urlsDisabled = true; }

    private static void resolvePathsWith(FileAcquirer acquirer) {
        ConfigTransformer.setPathAcquirer(reference -> {
            try {
                return acquirer.waitFor(reference, 15, TimeUnit.MINUTES).toPath();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException("Interrupted while waiting for " + reference, e);
            }
        });
    }

    public ComponentRegistry<RequestHandler> getRequestHandlerRegistry() { return requestHandlers; }
    public void setRequestHandlerRegistry(ComponentRegistry<RequestHandler> registry) { requestHandlers = registry; }

    public ComponentRegistry<ClientProvider> getClientProviderRegistry() { return clientProviders; }
    public void setClientProviderRegistry(ComponentRegistry<ClientProvider> registry) { clientProviders = registry; }

    public ComponentRegistry<ServerProvider> getServerProviderRegistry() { return serverProviders; }
    public void setServerProviderRegistry(ComponentRegistry<ServerProvider> registry) { serverProviders = registry; }

    public ComponentRegistry<AbstractComponent> getComponentRegistry() { return components; }

    /** The registry of the application's components, frozen as it is set. */
    public void setComponentRegistry(ComponentRegistry<AbstractComponent> registry) {
        registry.freeze();
        components = registry;
    }

    public boolean applyOnRestart() { return applyOnRestart; }
    public void setApplyOnRestart(boolean applyOnRestart) { this.applyOnRestart = applyOnRestart; }

}
