package com.yahoo.container.standalone;

import ai.dwell.runtime.serve.container.DispatchWarmup;
import com.yahoo.config.ConfigInstance;
import com.yahoo.config.FileReference;
import com.yahoo.config.ModelReference;
import com.yahoo.config.UrlReference;
import com.yahoo.config.subscription.ConfigInterruptedException;
import com.yahoo.config.subscription.SubscriberClosedException;
import com.yahoo.container.Container;
import com.yahoo.container.di.config.Subscriber;
import com.yahoo.container.di.config.SubscriberFactory;
import com.yahoo.vespa.config.ConfigKey;
import com.yahoo.vespa.config.ConfigPayload;
import com.yahoo.vespa.config.ConfigPayloadApplier;
import com.yahoo.vespa.config.UrlDownloader;
import com.yahoo.vespa.model.VespaModel;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The runtime's own class in the place of the standalone container's config subscriptions of the same name (earlier on
 * the class path, as VespaDocumentAccess; written for the runtime, with the constructor and interface the standalone
 * container calls). It gives the container the configs of the model once, at generation 0, and then none until closed
 * (a standalone container's model never changes). Unlike Vespa's standalone container, which hands each config over
 * as the model builds it, a config with a model field ({@code <model path="..."/>}, e.g. hugging-face-tokenizer's) or a
 * path field (lucene-linguistics' configDir) is
 * first put through Vespa's {@link ConfigPayloadApplier}, as a node's config subscription does, its paths resolved to
 * the package's files by the container's file acquirer: a component that reads its model path from its config gets it.
 * A model given by url is refused, naming it (not behind the applier's "Not able to create config builder for payload",
 * which is how colbert-embedder's and splade-embedder's url models were refused before). The dispatcher's warm-up is
 * the one value that differs from the model's ({@link DispatchWarmup}).
 */
public class StandaloneSubscriberFactory implements SubscriberFactory {

    private static final long FILE_TIMEOUT_SECONDS = 60;
    private static final Map<Class<?>, Boolean> withModels = new ConcurrentHashMap<>();

    private final VespaModel model;

    public StandaloneSubscriberFactory(VespaModel root) {
        this.model = root;
    }

    @Override
    public Subscriber getSubscriber(Set<? extends ConfigKey<?>> configKeys, String name) {
        return new ModelSubscriber(configKeys);
    }

    public void reloadActiveSubscribers(long generation) {
        throw new UnsupportedOperationException("The configs of a standalone container do not change");
    }

    @Override
    public void close() { }

    /** The configs of a set of keys, from the model. */
    private final class ModelSubscriber implements Subscriber {

        private final Set<? extends ConfigKey<?>> keys;
        private volatile boolean closed = false;
        private long generation = -1; // before the first waitNextGeneration

        ModelSubscriber(Set<? extends ConfigKey<?>> keys) { this.keys = keys; }

        @Override
        public long waitNextGeneration(boolean isInitializing) {
            generation++;
            if (generation > 0) waitUntilClosedOrInterrupted();
            return generation;
        }

        /** There is never a next generation: returns when the thread is interrupted, throws when closed. */
        private void waitUntilClosedOrInterrupted() {
            try {
                while ( ! closed) {
                    if (Thread.interrupted()) return;
                    Thread.sleep(100);
                }
            }
            catch (InterruptedException e) {
                throw new ConfigInterruptedException(e);
            }
            throw new SubscriberClosedException();
        }

        @Override public long generation() { return generation; }

        @Override public boolean configChanged() { return generation == 0; }

        @Override public boolean applyOnRestart() { return false; }

        @Override
        @SuppressWarnings("unchecked")
        public Map<ConfigKey<ConfigInstance>, ConfigInstance> config() {
            Map<ConfigKey<ConfigInstance>, ConfigInstance> configs = new HashMap<>();
            for (ConfigKey<?> key : keys) configs.put((ConfigKey<ConfigInstance>) key, configOf(key));
            return configs;
        }

        @Override public void close() { closed = true; }

    }

    private ConfigInstance configOf(ConfigKey<?> key) {
        ConfigInstance.Builder builder = newBuilder(key.getConfigClass());
        if (model.getConfig(builder, key.getConfigId()) == null)
            throw new IllegalArgumentException("The model has no config " + key.getName() + " for config id '" + key.getConfigId() + "'");
        DispatchWarmup.adjust(builder);
        ConfigInstance config = build(key.getConfigClass(), builder);
        return hasModelFields(key.getConfigClass()) ? withModelsResolved(key.getConfigClass(), config) : config;
    }

    /** The config again, with its model and path fields resolved as a node's subscription resolves them. */
    static ConfigInstance withModelsResolved(Class<?> configClass, ConfigInstance config) {
        ConfigInstance.Builder builder = newBuilder(configClass);
        RefusingUrls urls = new RefusingUrls();
        try {
            new ConfigPayloadApplier<>(builder, StandaloneSubscriberFactory::packageFile, urls).applyPayload(ConfigPayload.fromInstance(config));
        }
        catch (RuntimeException e) {
            throw refusedUrlIn(e).orElseThrow(() -> e);
        }
        finally {
            urls.shutdown();
        }
        return build(configClass, builder);
    }

    /** The url refusal that caused this failure of the applier, if one did. */
    private static Optional<UrlRefused> refusedUrlIn(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause())
            if (cause instanceof UrlRefused refused) return Optional.of(refused);
        return Optional.empty();
    }

    private static Path packageFile(FileReference reference) {
        try {
            return Container.get().getFileAcquirer().waitFor(reference, FILE_TIMEOUT_SECONDS, TimeUnit.SECONDS).toPath();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while resolving " + reference, e);
        }
    }

    private static ConfigInstance.Builder newBuilder(Class<?> configClass) {
        try {
            Class<?> builderClass = Class.forName(configClass.getName() + "$Builder", true, configClass.getClassLoader());
            return (ConfigInstance.Builder) builderClass.getConstructor().newInstance();
        }
        catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("Cannot make a builder of config " + configClass.getName(), e);
        }
    }

    private static ConfigInstance build(Class<?> configClass, ConfigInstance.Builder builder) {
        try {
            return (ConfigInstance) configClass.getConstructor(builder.getClass()).newInstance(builder);
        }
        catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalStateException("Cannot build config " + configClass.getName(), e);
        }
    }

    /** Whether a config class, or a class nested in it, has a model or path field. */
    private static boolean hasModelFields(Class<?> configClass) {
        return configClass != null && withModels.computeIfAbsent(configClass, StandaloneSubscriberFactory::declaresModel);
    }

    private static boolean declaresModel(Class<?> type) {
        for (Method method : type.getDeclaredMethods())
            if (method.getReturnType() == ModelReference.class) return true;
        // a path field (PathNode, OptionalPathNode, or a vector or map of them), also resolved to the package's file or directory
        for (java.lang.reflect.Field field : type.getDeclaredFields())
            if (field.getGenericType().getTypeName().contains("PathNode")) return true;
        for (Class<?> nested : type.getDeclaredClasses())
            if (declaresModel(nested)) return true;
        return false;
    }

    /** The runtime downloads nothing: a model given by url is refused, naming it. */
    private static final class RefusingUrls extends UrlDownloader {
        @Override
        public File waitFor(UrlReference url, Duration timeout) { throw new UrlRefused(url); }
        @Override
        public File waitFor(UrlReference url, DownloadOptions options, Duration timeout) { return waitFor(url, timeout); }
    }

    /** The refusal of a model given by url. */
    static final class UrlRefused extends IllegalArgumentException {
        UrlRefused(UrlReference url) {
            super("Model url '" + url.value() + "': models given by url are not supported by the local runtime; " +
                  "give the model as a path in the application package");
        }
    }

}
