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
 * dwell's runtime: Vespa's class of this name (container-disc 8.700.24), earlier on the class path, the same but for
 * one addition. Vespa's container keeps what its application configured (its handler and component registries, its
 * file acquirer) in this process-wide instance, and a few of its handlers read it when they serve a request (the root
 * and /ApplicationStatus handlers list the registered handlers from it). The runtime serves each container cluster
 * of a package by a container of its own in one process (ai.dwell.runtime.serve.container.ContainerHosts), each with
 * an instance of its own, so {@link #get()} answers, on a thread bound to a container's instance
 * ({@link #bindToCurrentThread}: the thread serving one of its requests, see ai.dwell.runtime.serve.container.OwnContainerFilter,
 * or closing it), that instance, and elsewhere the process-wide one, as Vespa's does.
 */
public class Container {

    private volatile boolean usingCustomFileAcquirer = false;
    private volatile boolean disabledUrlDownloader = false;

    private volatile ComponentRegistry<RequestHandler> requestHandlerRegistry;
    private volatile ComponentRegistry<ClientProvider> clientProviderRegistry;
    private volatile ComponentRegistry<ServerProvider> serverProviderRegistry;
    private volatile ComponentRegistry<AbstractComponent> componentRegistry;
    private volatile FileAcquirer fileAcquirer;
    private volatile UrlDownloader urlDownloader;
    private volatile boolean applyOnRestart = false;

    private static Container instance = new Container();
    private static final ThreadLocal<Container> boundToThread = new ThreadLocal<>();

    public static Container get() {
        Container bound = boundToThread.get();
        return bound != null ? bound : instance;
    }

    /** dwell: makes {@link #get()} answer this instance on the calling thread (null: the process-wide one again). */
    public static void bindToCurrentThread(Container container) {
        if (container == null) boundToThread.remove();
        else boundToThread.set(container);
    }

    public void shutdown() {
        if (fileAcquirer != null)
            fileAcquirer.shutdown();
        if (urlDownloader != null)
            urlDownloader.shutdown();
    }

    /** Used to acquire files originating from the application package. */
    public FileAcquirer getFileAcquirer() { return fileAcquirer; }

    /** Used by Application to be able to repeatedly set up containers. */
    public static void resetInstance() {
        instance = new Container();
    }

    public ComponentRegistry<RequestHandler> getRequestHandlerRegistry() { return requestHandlerRegistry; }

    public void setRequestHandlerRegistry(ComponentRegistry<RequestHandler> requestHandlerRegistry) {
        this.requestHandlerRegistry = requestHandlerRegistry;
    }

    public ComponentRegistry<ClientProvider> getClientProviderRegistry() { return clientProviderRegistry; }

    public void setClientProviderRegistry(ComponentRegistry<ClientProvider> clientProviderRegistry) {
        this.clientProviderRegistry = clientProviderRegistry;
    }

    public ComponentRegistry<ServerProvider> getServerProviderRegistry() { return serverProviderRegistry; }

    public void setServerProviderRegistry(ComponentRegistry<ServerProvider> serverProviderRegistry) {
        this.serverProviderRegistry = serverProviderRegistry;
    }

    public ComponentRegistry<AbstractComponent> getComponentRegistry() { return componentRegistry; }

    public void setComponentRegistry(ComponentRegistry<AbstractComponent> registry) {
        registry.freeze();
        this.componentRegistry = registry;
    }

    public void setupFileAcquirer() {
        if (usingCustomFileAcquirer) return;
        fileAcquirer = FileAcquirerFactory.create();
        setPathAcquirer(fileAcquirer);
    }

    public void setCustomFileAcquirer(FileAcquirer fileAcquirer) {
        if (this.fileAcquirer != null)
            throw new RuntimeException("Can't change file acquirer. Is " + this.fileAcquirer + " attempted to set to " + fileAcquirer);
        usingCustomFileAcquirer = true;
        this.fileAcquirer = fileAcquirer;
        setPathAcquirer(fileAcquirer);
    }

    private static void setPathAcquirer(FileAcquirer fileAcquirer) {
        ConfigTransformer.setPathAcquirer(fileReference -> {
            try {
                return fileAcquirer.waitFor(fileReference, 15, TimeUnit.MINUTES).toPath();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        });
    }

    public void setupUrlDownloader() {
        if (disabledUrlDownloader) return;
        urlDownloader = new UrlDownloader();
        ConfigTransformer.setUrlDownloader(urlDownloader);
    }

    public void disableUrlDownloader() { disabledUrlDownloader = true; }

    public void setApplyOnRestart(boolean applyOnRestart) { this.applyOnRestart = applyOnRestart; }

    public boolean applyOnRestart() { return applyOnRestart; }

}
