package com.yahoo.application.container.impl;

import ai.dwell.runtime.serve.container.BundleClassLoader;
import ai.dwell.runtime.serve.container.BundleManifest;
import ai.dwell.runtime.serve.container.OsgiStub;
import com.yahoo.container.standalone.StandaloneContainerApplication;
import com.yahoo.jdisc.application.OsgiFramework;
import com.yahoo.jdisc.application.OsgiHeader;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.BundleWiring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

/**
 * The runtime's own class in the place of the standalone container's framework of the same name (earlier on the class
 * path, as LocalFileDb; written for the runtime, with the constructor and interface Vespa's JDisc calls): the "OSGi
 * framework" of a container in one JVM, whose installed bundles are all active and share one class loader, as in
 * Vespa's standalone container. It differs in that loader: a {@link BundleClassLoader}, which reads each bundle's
 * Bundle-ClassPath (the jars it embeds) and loads the packages a bundle contains without importing them from the bundle
 * first, as an OSGi framework does; Vespa's is a URLClassLoader of the bundle jars alone, platform first, so a bundle
 * that embeds lucene-linguistics with Lucene modules (nori, phonetic, stempel) got the runtime's Lucene without them.
 * The bundles answer the OSGi calls the container makes (headers, class loading, revision and wiring); any other fails,
 * naming itself.
 */
public final class ClassLoaderOsgiFramework implements OsgiFramework {

    private static final Path UNPACKED = Path.of(System.getProperty("java.io.tmpdir"), "dwell-bundles");

    private final List<Path> jars = new ArrayList<>();
    private final List<Bundle> bundles = new ArrayList<>();
    private final Bundle systemBundle;
    private final BundleContext context;
    private BundleClassLoader bundleLoader = null;

    public ClassLoaderOsgiFramework() {
        Hashtable<String, String> headers = new Hashtable<>();
        headers.put(OsgiHeader.APPLICATION, StandaloneContainerApplication.class.getName());
        systemBundle = bundle(0, getClass().getName(), headers);
        bundles.add(systemBundle);
        context = OsgiStub.of(BundleContext.class, Map.ofEntries(
                Map.entry("getProperty", args -> null),
                Map.entry("getBundle", args -> systemBundle),
                Map.entry("getBundles", args -> new Bundle[] { systemBundle }),
                Map.entry("addServiceListener", args -> null),
                Map.entry("removeServiceListener", args -> null),
                Map.entry("addBundleListener", args -> null),
                Map.entry("removeBundleListener", args -> null),
                Map.entry("addFrameworkListener", args -> null),
                Map.entry("removeFrameworkListener", args -> null),
                Map.entry("registerService", args -> {
                    if (args[0] instanceof String) return null; // registered nowhere, as in Vespa's standalone container
                    throw new UnsupportedOperationException("BundleContext.registerService of a class");
                }),
                Map.entry("getServiceReferences", args -> {
                    if (args[0] instanceof Class) return new ArrayList<>();
                    throw new UnsupportedOperationException("BundleContext.getServiceReferences by class name");
                })));
    }

    @Override
    public synchronized List<Bundle> installBundle(String location) {
        if (location == null || location.isEmpty()) return bundles();
        Path jar;
        try {
            jar = Path.of(new URI(location));
        }
        catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalArgumentException("Bundle location '" + location + "' is not a file URI", e);
        }
        if (bundleLoader != null)
            throw new IllegalStateException("Bundle " + jar + " installed after the application's bundles were loaded");
        BundleManifest manifest = BundleManifest.of(jar);
        jars.add(jar);
        bundles.add(bundle(bundles.size(), manifest.symbolicName(), manifest.headers()));
        return bundles();
    }

    private synchronized ClassLoader classLoader() {
        if (jars.isEmpty()) return getClass().getClassLoader();
        if (bundleLoader == null) bundleLoader = BundleClassLoader.of(jars, getClass().getClassLoader(), UNPACKED);
        return bundleLoader;
    }

    private Bundle bundle(long id, String symbolicName, Hashtable<String, String> headers) {
        String version = headers.get("Bundle-Version");
        Version parsed = version == null ? Version.emptyVersion : Version.parseVersion(version);
        Bundle[] self = new Bundle[1];
        BundleWiring wiring = OsgiStub.of(BundleWiring.class, Map.of(
                "getClassLoader", args -> classLoader(),
                "getBundle", args -> self[0]));
        BundleRevision revision = OsgiStub.of(BundleRevision.class, Map.of(
                "getSymbolicName", args -> symbolicName,
                "getVersion", args -> parsed,
                "getWiring", args -> wiring,
                "getTypes", args -> 0, // not a fragment
                "getBundle", args -> self[0]));
        self[0] = OsgiStub.of(Bundle.class, Map.ofEntries(
                Map.entry("getBundleId", args -> id),
                Map.entry("getSymbolicName", args -> symbolicName),
                Map.entry("getLocation", args -> symbolicName),
                Map.entry("getVersion", args -> parsed),
                Map.entry("getHeaders", args -> headers),
                Map.entry("getState", args -> Bundle.ACTIVE),
                Map.entry("start", args -> null),
                Map.entry("stop", args -> null),
                Map.entry("update", args -> null),
                Map.entry("uninstall", args -> null),
                Map.entry("getRegisteredServices", args -> new ServiceReference<?>[0]),
                Map.entry("getServicesInUse", args -> new ServiceReference<?>[0]),
                Map.entry("hasPermission", args -> true),
                Map.entry("getLastModified", args -> 1L),
                Map.entry("getSignerCertificates", args -> Map.of()),
                Map.entry("getDataFile", args -> null),
                Map.entry("loadClass", args -> classLoader().loadClass((String) args[0])),
                Map.entry("getResource", args -> classLoader().getResource((String) args[0])),
                Map.entry("getResources", args -> classLoader().getResources((String) args[0])),
                Map.entry("adapt", args -> args[0] == BundleRevision.class ? revision : args[0] == BundleWiring.class ? wiring : null),
                Map.entry("compareTo", args -> Long.compare(id, ((Bundle) args[0]).getBundleId()))));
        return self[0];
    }

    @Override
    public void startBundles(List<Bundle> bundles, boolean privileged) { }

    @Override
    public void refreshPackages() { }

    @Override
    public BundleContext bundleContext() { return context; }

    @Override
    public synchronized List<Bundle> bundles() { return bundles; }

    @Override
    public synchronized List<Bundle> getBundles(Bundle requestingBundle) { return bundles; }

    @Override
    public void allowDuplicateBundles(Collection<Bundle> bundles) { }

    @Override
    public void start() { }

    /** Closes the bundles' class loader, which deletes the jars it unpacked. */
    @Override
    public synchronized void stop() {
        if (bundleLoader == null) return;
        try {
            bundleLoader.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
