package ai.dwell.runtime.serve;

import ai.dwell.runtime.serve.configserver.Deployments;
import ai.dwell.runtime.serve.container.ContainerHost;
import ai.dwell.runtime.serve.container.LocalHosts;
import ai.dwell.runtime.serve.deploy.ApplicationArchive;
import ai.dwell.runtime.serve.deploy.InvalidApplicationException;
import ai.dwell.runtime.serve.deploy.ModelBuilder;
import ai.dwell.runtime.serve.deploy.PackageServices;
import ai.dwell.runtime.serve.deploy.ServedPackage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The runtime: deploys packages and keeps the active one served. A package is unpacked and
 * validated first; only a valid package replaces the active generation, so an invalid deploy
 * changes nothing.
 */
public class Runtime implements Deployments, AutoCloseable {

    private static final Logger log = Logger.getLogger(Runtime.class.getName());

    private final DataDirectory data;
    private final LocalHosts hosts;
    private Generation active;

    public Runtime(DataDirectory data, LocalHosts hosts) {
        this.data = data;
        this.hosts = hosts;
    }

    /** Serves the last activated package again, if there is one: after a restart, also after kill -9. */
    public synchronized void recover() {
        var session = data.active();
        if (session.isEmpty()) return;
        Path dir = data.application(session.getAsLong());
        try {
            log.info("Recovering session " + session.getAsLong() + " from " + dir);
            activate(session.getAsLong(), ApplicationArchive.packageRoot(dir));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized Active deploy(byte[] zip) {
        long session = data.nextSessionId();
        Path dir = data.application(session);
        try {
            return toActive(activate(session, ApplicationArchive.unpack(zip, dir)));
        }
        catch (InvalidApplicationException e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    /** Deploys the package in this directory (as `dwell start DIR` does). */
    public synchronized Active deploy(Path packageDir) {
        long session = data.nextSessionId();
        Path dir = data.application(session);
        try {
            Files.createDirectories(dir.getParent());
            copy(packageDir, dir);
            return toActive(activate(session, dir));
        }
        catch (InvalidApplicationException e) {
            deleteQuietly(dir);
            throw e;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized Active active() {
        return active == null ? null : toActive(active);
    }

    private Generation activate(long session, Path deployedDir) {
        long start = System.nanoTime();
        ModelBuilder.Built built = ModelBuilder.build(deployedDir);
        PackageServices services = PackageServices.of(built.model(), deployedDir);
        Path served = ServedPackage.prepare(deployedDir, data.served(session));
        if (hosts != null) hosts.write(List.copyOf(services.serviceHosts()), services.contentHosts());

        // Vespa switches config generations in place; here the previous container stops (finishing
        // what it is serving) before the next starts, as they share the HTTP port.
        if (active != null) active.close();
        active = null;
        ContainerHost container = ContainerHost.start(served, services.containerCluster());
        active = new Generation(session, deployedDir, built.model(), services, container, built.log());
        data.setActive(session);
        log.info("Session " + session + " active after " + (System.nanoTime() - start) / 1_000_000 + " ms");
        return active;
    }

    private static Active toActive(Generation generation) {
        var services = generation.services();
        return new Active(generation.sessionId(),
                          List.of(new Service(services.containerCluster(), "container", "localhost", services.containerPort())),
                          generation.log());
    }

    private static void copy(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(file).toString());
                if (Files.isDirectory(file)) Files.createDirectories(to);
                else Files.copy(file, to);
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        }
        catch (IOException ignored) { }
    }

    @Override
    public synchronized void close() {
        if (active != null) active.close();
        active = null;
    }

}
