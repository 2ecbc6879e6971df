package ai.dwell.runtime.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Takes snapshots, on one background thread, to bound recovery time. A snapshot rolls the log to a new
 * segment, writes the table of documents, and then deletes the segments and snapshots it makes obsolete.
 *
 * <p>Writes continue while the table is written, so a snapshot may hold documents newer than the serial
 * number it covers. That is harmless: log entries hold complete documents or removals, so replaying the
 * entries after that serial number over the snapshot gives the same documents whatever it caught.
 */
final class Snapshotter implements AutoCloseable {

    private static final Logger log = Logger.getLogger(Snapshotter.class.getName());

    private final DataDirectory directory;
    private final TransactionLog transactionLog;
    private final DocumentTable table;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "dwell-snapshot");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicBoolean requested = new AtomicBoolean();
    private long coveredSerial; // Only accessed on the executor's thread

    Snapshotter(DataDirectory directory, TransactionLog transactionLog, DocumentTable table, long coveredSerial) {
        this.directory = directory;
        this.transactionLog = transactionLog;
        this.table = table;
        this.coveredSerial = coveredSerial;
    }

    /** Takes a snapshot in the background, unless one is already waiting to start. */
    void requestSnapshot() {
        if ( ! requested.compareAndSet(false, true)) return;
        try {
            executor.execute(() -> {
                requested.set(false);
                try {
                    snapshot();
                }
                catch (IOException | RuntimeException e) {
                    log.log(Level.WARNING, "Snapshot in " + directory.path() + " failed", e);
                }
            });
        }
        catch (RejectedExecutionException e) {
            requested.set(false); // closing, which takes a snapshot anyway
        }
    }

    /** Takes a snapshot now, after any that is in progress, and returns when it is durable. */
    void snapshotNow() {
        try {
            executor.submit(() -> { snapshot(); return null; }).get();
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw new UncheckedIOException(io);
            if (e.getCause() instanceof RuntimeException runtime) throw runtime;
            throw new IllegalStateException(e.getCause());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a snapshot", e);
        }
    }

    private void snapshot() throws IOException {
        long serial = transactionLog.roll().join();
        if (serial == coveredSerial) return;
        long start = System.nanoTime();
        long documents = SnapshotFile.write(directory, serial, table.all());
        directory.deleteCoveredBy(serial);
        coveredSerial = serial;
        log.info(String.format("Wrote snapshot of %d documents covering serial %d in %d ms",
                               documents, serial, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
    }

    /** Takes a final snapshot and stops the background thread. */
    @Override
    public void close() {
        try {
            snapshotNow();
        }
        finally {
            executor.shutdown();
        }
    }

}
