package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An append-only log of entries in segment files, with group commit: writers add entries to an in-memory
 * batch, and one commit thread writes each batch to the current segment, forces it to disk, and then runs
 * the batch's commit actions in serial order. A write is thus durable before its action runs, and one
 * fsync covers every entry that arrived while the previous one was in progress.
 *
 * <p>A batch the disk has no room for fails alone with a {@link StorageFullException}: the segment is cut back to
 * where that batch began, and the log goes on. The serial numbers of the entries never written are accounted for by
 * a {@link EntryKind#SKIP} entry in front of the next batch that is written, so that recovery still finds every
 * serial number. Once any other write, or an fsync, fails, the log fails every pending and later entry: after a
 * failed fsync, what is on disk is unknown.
 */
final class TransactionLog implements AutoCloseable {

    /** What to do once an entry is durable, or when it cannot be made so. Runs on the commit thread. */
    interface CommitAction {

        void committed();

        void failed(Throwable cause);

    }

    private static final Logger log = Logger.getLogger(TransactionLog.class.getName());

    private final DataDirectory directory;
    private final SegmentFiles segmentFiles;
    private final long segmentEntryLimit;
    private final Runnable onSegmentFull;
    private final int maxBufferedBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final Condition roomAvailable = lock.newCondition();
    private final Thread committer;

    // Guarded by lock
    private Batch filling = new Batch();
    private final List<CompletableFuture<Long>> rollRequests = new ArrayList<>();
    private long nextSerial;
    private boolean closed = false;
    private Throwable failure = null;

    // Owned by the commit thread
    private Batch spare = new Batch();
    private FileChannel segment;
    private long segmentLength; // what was written and forced to the segment, its header included
    private long lastWrittenSerial;
    private long entriesInSegment;
    private long firstSkippedSerial = -1; // serials from here to the last of the failed batches were never written
    private long lastSkippedSerial = -1;
    private final ByteBuffer skip = ByteBuffer.allocate(EntryFormat.encodedSize(Long.BYTES));

    /**
     * Starts a new segment at the given serial number and the commit thread.
     *
     * @param segmentEntryLimit the number of entries in a segment at which onSegmentFull is run
     * @param onSegmentFull run on the commit thread, once per segment, when it reaches segmentEntryLimit entries
     * @param maxBufferedBytes appends wait while this many bytes wait for the commit thread
     */
    TransactionLog(DataDirectory directory, long nextSerial, long segmentEntryLimit, Runnable onSegmentFull,
                   int maxBufferedBytes) throws IOException {
        this(directory, SegmentFiles.FILE_SYSTEM, nextSerial, segmentEntryLimit, onSegmentFull, maxBufferedBytes);
    }

    TransactionLog(DataDirectory directory, SegmentFiles segmentFiles, long nextSerial, long segmentEntryLimit, Runnable onSegmentFull,
                   int maxBufferedBytes) throws IOException {
        this.directory = directory;
        this.segmentFiles = segmentFiles;
        this.nextSerial = nextSerial;
        this.lastWrittenSerial = nextSerial - 1;
        this.segmentEntryLimit = segmentEntryLimit;
        this.onSegmentFull = onSegmentFull;
        this.maxBufferedBytes = maxBufferedBytes;
        this.segment = startSegment(nextSerial);
        this.segmentLength = segment.position();
        this.committer = new Thread(this::commitLoop, "dwell-transaction-log");
        this.committer.setDaemon(true);
        this.committer.start();
    }

    /**
     * Appends an entry, waiting while too many bytes are buffered, and returns its serial number.
     * The action runs once the entry is durable.
     *
     * @throws IllegalStateException if the log is closed or has failed
     */
    long append(EntryKind kind, long timestamp, byte[] payload, CommitAction action) {
        lock.lock();
        try {
            while (filling.size() >= maxBufferedBytes && ! closed && failure == null)
                roomAvailable.awaitUninterruptibly();
            if (failure != null) throw new IllegalStateException("The transaction log has failed", failure);
            if (closed) throw new IllegalStateException("The transaction log is closed");
            long serial = nextSerial++;
            filling.add(serial, timestamp, kind, payload, action);
            workAvailable.signal();
            return serial;
        }
        finally {
            lock.unlock();
        }
    }

    /**
     * Makes every entry appended so far durable, and starts a new segment unless the current one is empty.
     * The returned future completes with the last serial number in the earlier segments, after all their
     * commit actions have run.
     */
    CompletableFuture<Long> roll() {
        CompletableFuture<Long> rolled = new CompletableFuture<>();
        lock.lock();
        try {
            if (failure != null) rolled.completeExceptionally(failure);
            else if (closed) rolled.completeExceptionally(new IllegalStateException("The transaction log is closed"));
            else {
                rollRequests.add(rolled);
                workAvailable.signal();
            }
        }
        finally {
            lock.unlock();
        }
        return rolled;
    }

    private void commitLoop() {
        while (true) {
            Batch batch;
            List<CompletableFuture<Long>> rolls;
            lock.lock();
            try {
                while (filling.isEmpty() && rollRequests.isEmpty() && ! closed)
                    workAvailable.awaitUninterruptibly();
                if (filling.isEmpty() && rollRequests.isEmpty()) return; // closed, and everything is done
                batch = filling;
                filling = spare;
                rolls = List.copyOf(rollRequests);
                rollRequests.clear();
                roomAvailable.signalAll();
            }
            finally {
                lock.unlock();
            }
            commit(batch);
            batch.clear();
            spare = batch;
            roll(rolls);
        }
    }

    private void commit(Batch batch) {
        if (batch.isEmpty()) return;
        Throwable error = failure();
        if (error == null) {
            try {
                write(batch);
            }
            catch (StorageFullException e) {
                skipped(batch);
                for (CommitAction action : batch.actions()) action.failed(e);
                return;
            }
            catch (IOException | RuntimeException e) {
                error = fail(e);
            }
        }
        if (error != null) {
            for (CommitAction action : batch.actions()) action.failed(error);
            return;
        }
        lastWrittenSerial = batch.lastSerial();
        for (CommitAction action : batch.actions()) {
            try {
                action.committed();
            }
            catch (RuntimeException e) {
                log.log(Level.SEVERE, "Commit action failed", e);
            }
        }
        long before = entriesInSegment;
        entriesInSegment += batch.actions().size();
        if (before < segmentEntryLimit && entriesInSegment >= segmentEntryLimit) onSegmentFull.run();
    }

    /**
     * Writes the batch, after the entry that skips the serials of batches that could not be written, if any, and forces
     * it to disk. Throws StorageFullException if the disk had no room and the segment is again as it was before.
     */
    private void write(Batch batch) throws IOException {
        ByteBuffer bytes = batch.contents();
        try {
            if (firstSkippedSerial >= 0) {
                skip.clear();
                EntryFormat.encode(lastSkippedSerial, 0, EntryKind.SKIP, ByteBuffer.allocate(Long.BYTES).putLong(firstSkippedSerial).array(), skip);
                skip.flip();
                while (skip.hasRemaining()) segment.write(skip);
            }
            while (bytes.hasRemaining()) segment.write(bytes);
        }
        catch (IOException e) {
            if ( ! StorageFullException.isNoSpace(e)) throw e;
            // nothing of this batch was forced: cut it off, so that the next batch follows the last one written
            segment.truncate(segmentLength);
            segment.position(segmentLength);
            segment.force(false);
            throw new StorageFullException("No space left on the disk of " + directory.path() + " for " + batch.actions().size() +
                                           " log entries; they are not written", e);
        }
        segment.force(false);
        segmentLength = segment.position();
        firstSkippedSerial = lastSkippedSerial = -1;
    }

    /** Records that the serials of this batch were never written, so that the next entry written accounts for them. */
    private void skipped(Batch batch) {
        if (firstSkippedSerial < 0) firstSkippedSerial = batch.firstSerial();
        lastSkippedSerial = batch.lastSerial();
        log.warning("The transaction log in " + directory.path() + " had no room for serials " + batch.firstSerial() + " to " +
                    batch.lastSerial() + ": those writes failed, and the log goes on");
    }

    private void roll(List<CompletableFuture<Long>> rolls) {
        if (rolls.isEmpty()) return;
        Throwable error = failure();
        if (error == null && entriesInSegment > 0) {
            try {
                FileChannel next = startSegment(lastWrittenSerial + 1);
                segment.close();
                segment = next;
                segmentLength = segment.position();
                entriesInSegment = 0;
            }
            catch (StorageFullException e) {
                error = e; // this roll fails; the log goes on in its current segment
            }
            catch (IOException e) {
                error = fail(e);
            }
        }
        for (CompletableFuture<Long> rolled : rolls) {
            if (error == null) rolled.complete(lastWrittenSerial);
            else rolled.completeExceptionally(error);
        }
    }

    /**
     * Creates the segment whose first entry has this serial, with its header written and forced. If the disk has no
     * room for it, it is deleted again and StorageFullException thrown.
     */
    private FileChannel startSegment(long firstSerial) throws IOException {
        Path path = directory.segment(firstSerial);
        FileChannel created = segmentFiles.create(path);
        try {
            new FileHeader(FileHeader.SEGMENT_MAGIC, firstSerial).write(created);
            created.force(true);
            directory.sync();
            return created;
        }
        catch (IOException e) {
            created.close();
            if ( ! StorageFullException.isNoSpace(e)) throw e;
            Files.deleteIfExists(path);
            throw new StorageFullException("No space left on the disk of " + directory.path() + " for a new log segment", e);
        }
    }

    private Throwable failure() {
        lock.lock();
        try {
            return failure;
        }
        finally {
            lock.unlock();
        }
    }

    private Throwable fail(Throwable cause) {
        log.log(Level.SEVERE, "Transaction log in " + directory.path() + " failed; no more writes are accepted", cause);
        lock.lock();
        try {
            if (failure == null) failure = cause;
            roomAvailable.signalAll();
            return failure;
        }
        finally {
            lock.unlock();
        }
    }

    /** Makes everything appended so far durable, runs its actions, and stops the commit thread. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) return;
            closed = true;
            workAvailable.signalAll();
            roomAvailable.signalAll();
        }
        finally {
            lock.unlock();
        }
        joinUninterruptibly(committer);
        try {
            segment.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            }
            catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Encoded entries waiting for a commit, with their actions. */
    private static final class Batch {

        private ByteBuffer bytes = ByteBuffer.allocate(1 << 16);
        private final List<CommitAction> actions = new ArrayList<>();
        private long firstSerial;
        private long lastSerial;

        void add(long serial, long timestamp, EntryKind kind, byte[] payload, CommitAction action) {
            ensureRoom(EntryFormat.encodedSize(payload.length));
            EntryFormat.encode(serial, timestamp, kind, payload, bytes);
            if (actions.isEmpty()) firstSerial = serial;
            actions.add(action);
            lastSerial = serial;
        }

        long firstSerial() { return firstSerial; }

        int size() { return bytes.position(); }

        boolean isEmpty() { return actions.isEmpty(); }

        List<CommitAction> actions() { return actions; }

        long lastSerial() { return lastSerial; }

        ByteBuffer contents() { return bytes.duplicate().flip(); }

        void clear() {
            bytes.clear();
            actions.clear();
        }

        private void ensureRoom(int needed) {
            if (bytes.remaining() >= needed) return;
            ByteBuffer larger = ByteBuffer.allocate(Math.max(bytes.capacity() * 2, bytes.position() + needed));
            larger.put(bytes.flip());
            bytes = larger;
        }

    }

}
