package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.format.FormatTag;
import ai.dwell.runtime.format.RecordReader;
import ai.dwell.runtime.format.Records;
import ai.dwell.runtime.format.TensorBytes;
import ai.dwell.runtime.format.TornRecordException;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The embeddings one embedder computed for indexing, kept in a file of the data directory so that a
 * restart indexes the stored documents without embedding every text again: Vespa keeps a document's
 * embedding with the document, computed once when it was written; the runtime keeps the input document
 * and runs the indexing statements again on start. Each distinct text is appended once, as it is first
 * embedded. The file is a cache, not the record of truth: it is flushed, not fsynced, and a torn or corrupt
 * tail (a crash while appending, or blocks the file system extended with zeros) is cut off when read, from
 * the first record whose checksum fails: a wrong embedding must never be indexed. Appends are thread safe.
 *
 * <p>The file begins with the {@link FormatTag} {@link #MAGIC}, {@link #VERSION}; a file with another beginning is
 * set aside. Then {@link Records records} (length, CRC32C, body) whose body is, big-endian: the key's length
 * (int32), the key (destination, tensor type and text, UTF-8) and the tensor in Vespa's binary format.
 *
 * <p>The file is bounded by {@link #compact compaction}, which rewrites it with the newest record of each of the
 * newest distinct keys (a text embedded again after it left the in-memory cache is appended again, and texts of
 * removed documents stay until compacted away). Appends go on while the bulk of the file is rewritten; those
 * made meanwhile are copied over at the end, under the lock. The rewrite goes to a temporary file that is fsynced,
 * renamed over the file, and the directory fsynced, so a crash leaves the old file or the new one, whole.
 */
public final class EmbeddingFile implements AutoCloseable {

    private static final Logger log = Logger.getLogger(EmbeddingFile.class.getName());
    private static final int MAX_RECORD = 64 << 20;
    static final int MAGIC = 0x64776c65; // "dwle"
    static final int VERSION = 2;
    private static final FormatTag TAG = new FormatTag(MAGIC, VERSION);

    /** What an embedding is of: the text, where it goes and the type asked for. */
    public record Key(String text, String destination, TensorType type) {}

    private static final ExecutorService compactions = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "dwell-embeddings-compaction");
        thread.setDaemon(true);
        return thread;
    });

    private final Path path;
    private final AtomicBoolean compacting = new AtomicBoolean();
    private DataOutputStream out;
    private long records; // in the file, appended ones included
    private boolean failed = false, closed = false;

    private EmbeddingFile(Path path, long records) throws IOException {
        this.path = path;
        this.records = records;
        this.out = appender(path);
    }

    private static DataOutputStream appender(Path path) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE,
                                                                                                   StandardOpenOption.APPEND), 1 << 16));
        if (Files.size(path) == 0) {
            TAG.write(out);
            out.flush();
        }
        return out;
    }

    /**
     * Reads the embeddings in the file, cutting off a torn tail, and opens it for appending. The embeddings are
     * kept only if the embedder gives the first of them exactly (the same model and settings); else the file is
     * set aside (its name + ".stale") and a new one begun.
     *
     * @param sameEmbedder whether the embedder now in use gives this embedding for its key
     */
    public static Loaded open(Path path, Predicate<Map.Entry<Key, Tensor>> sameEmbedder) {
        try {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.deleteIfExists(temporary(path)); // left by a compaction a crash interrupted
            Map<Key, Tensor> embeddings = new HashMap<>();
            long[] records = { 0 };
            long start = System.nanoTime();
            if (Files.exists(path) && ! TAG.begins(path)) {
                log.info(path + " is not an embeddings file of this version; setting it aside");
                setAside(path);
            }
            if (Files.exists(path)) {
                long valid = read(path, embeddings, records);
                if (valid < Files.size(path)) {
                    log.warning("Cutting a torn tail off " + path + " at byte " + valid + " of " + Files.size(path));
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) { channel.truncate(valid); }
                }
                Optional<Map.Entry<Key, Tensor>> sample = embeddings.entrySet().stream().findFirst();
                if (sample.isPresent() && ! sameEmbedder.test(sample.get())) {
                    log.info("The embedder gives other embeddings than " + path + " holds; setting it aside");
                    setAside(path);
                    embeddings.clear();
                    records[0] = 0;
                }
                else {
                    log.info(String.format("Read %,d embeddings from %s in %d ms", embeddings.size(), path, (System.nanoTime() - start) / 1_000_000));
                }
            }
            return new Loaded(new EmbeddingFile(path, records[0]), embeddings);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Could not open the embeddings in " + path, e);
        }
    }

    /** The file, open for appending, and the embeddings it held. */
    public record Loaded(EmbeddingFile file, Map<Key, Tensor> embeddings) {}

    public Path path() { return path; }

    /** Appends an embedding. A failure to write is logged once and then ignored: this is a cache. */
    public synchronized void append(Key key, Tensor embedding) {
        if (failed) return;
        try {
            byte[] keyBytes = encode(key);
            byte[] tensor = TensorBytes.encode(embedding);
            byte[] body = new byte[4 + keyBytes.length + tensor.length];
            ByteBuffer.wrap(body).putInt(keyBytes.length).put(keyBytes).put(tensor);
            Records.write(out, body);
            out.flush();
            records++;
        }
        catch (IOException | RuntimeException e) {
            log.warning("Could not append to " + path + ", embeddings are no longer kept: " + e.getMessage());
            failed = true;
        }
    }

    /** The number of records in the file: embeddings, counting a text appended twice twice. */
    public synchronized long records() { return records; }

    /**
     * Compacts the file in the background (unless a compaction is running) to the newest record of each of its
     * newest {@code keep} distinct keys, and the records appended while it runs.
     */
    public void compactInBackground(long keep) {
        if ( ! compacting.compareAndSet(false, true)) return;
        try {
            compactions.execute(() -> {
                try {
                    compact(keep);
                }
                finally {
                    compacting.set(false);
                }
            });
        }
        catch (RejectedExecutionException e) {
            compacting.set(false);
        }
    }

    /** Compacts the file now, as {@link #compactInBackground} does; a failure is logged and leaves the file as it was. */
    public void compact(long keep) {
        Compaction compaction = null;
        try {
            compaction = beginCompaction();
            compaction.rewritePrefix(keep);
            compaction.finish();
        }
        catch (IOException | RuntimeException e) {
            log.log(Level.WARNING, "Could not compact " + path + "; it is kept as it was", e);
            if (compaction != null) compaction.abandon();
        }
    }

    /** Begins a compaction: the file as flushed now is its prefix; what is appended after it is copied at the end. */
    synchronized Compaction beginCompaction() throws IOException {
        out.flush();
        return new Compaction(Files.size(path), records);
    }

    /** One compaction, in steps, so that a test can append between them. */
    final class Compaction {

        private final long prefixBytes, prefixRecords;
        private final Path temporary = temporary(path);
        private final long start = System.nanoTime();
        private long kept;

        private Compaction(long prefixBytes, long prefixRecords) {
            this.prefixBytes = prefixBytes;
            this.prefixRecords = prefixRecords;
        }

        /** Writes the newest record of each of the prefix's newest {@code keep} distinct keys to the temporary file, in file order. */
        void rewritePrefix(long keep) throws IOException {
            long[] keyHashes = new long[Math.toIntExact(prefixRecords)];
            int count = forEachRecord((index, body) -> keyHashes[index] = keyHash(body));
            boolean[] keeps = new boolean[count];
            Set<Long> seen = new HashSet<>();
            for (int i = count - 1; i >= 0 && kept < keep; i--) {
                if (seen.add(keyHashes[i])) {
                    keeps[i] = true;
                    kept++;
                }
            }
            try (DataOutputStream rewritten = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 16))) {
                TAG.write(rewritten);
                forEachRecord((index, body) -> { if (keeps[index]) Records.write(rewritten, body); });
            }
        }

        /** Copies what was appended since the beginning, and puts the temporary file in place of the file. */
        void finish() throws IOException {
            synchronized (EmbeddingFile.this) {
                if (closed) throw new IOException(path + " was closed while it was compacted");
                out.flush();
                long appended = records - prefixRecords;
                try (FileChannel from = FileChannel.open(path, StandardOpenOption.READ);
                     FileChannel to = FileChannel.open(temporary, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                    long size = from.size();
                    for (long position = prefixBytes; position < size; )
                        position += from.transferTo(position, size - position, to);
                    to.force(true);
                }
                out.close();
                try {
                    Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    try (FileChannel directory = FileChannel.open(path.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
                        directory.force(true);
                    }
                    long before = records;
                    records = kept + appended;
                    log.info(String.format("Compacted %s from %,d to %,d embeddings (%,d bytes) in %d ms", path, before, records,
                                           Files.size(path), (System.nanoTime() - start) / 1_000_000));
                }
                finally {
                    out = appender(path);
                }
            }
        }

        void abandon() {
            try {
                Files.deleteIfExists(temporary);
            }
            catch (IOException e) {
                log.warning("Could not delete " + temporary + ": " + e.getMessage());
            }
        }

        private interface RecordConsumer { void accept(int index, byte[] body) throws IOException; }

        /** Gives each record of the prefix to the consumer; returns their number. */
        private int forEachRecord(RecordConsumer consumer) throws IOException {
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 1 << 16))) {
                in.skipNBytes(FormatTag.SIZE);
                RecordReader reader = new RecordReader(in, FormatTag.SIZE, prefixBytes, 4, MAX_RECORD, "record");
                int index = 0;
                for (Optional<byte[]> body = reader.next(); body.isPresent(); body = reader.next())
                    consumer.accept(index++, body.get());
                return index;
            }
        }

    }

    /** A 64-bit FNV-1a hash of a record's key bytes; two keys with one hash lose one of them to a compaction (a cache miss). */
    private static long keyHash(byte[] record) {
        int keyLength = ((record[0] & 0xff) << 24) | ((record[1] & 0xff) << 16) | ((record[2] & 0xff) << 8) | (record[3] & 0xff);
        long hash = 0xcbf29ce484222325L;
        for (int i = 4; i < 4 + keyLength; i++) {
            hash ^= record[i] & 0xff;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    @Override
    public synchronized void close() {
        closed = true;
        try {
            out.close();
        }
        catch (IOException e) {
            log.warning("Could not close " + path + ": " + e.getMessage());
        }
    }

    private static Path temporary(Path path) {
        return path.resolveSibling(path.getFileName() + ".tmp");
    }

    /** Waits for the compactions begun so far to end (for tests). */
    static void awaitCompactions() {
        try {
            compactions.submit(() -> { }).get();
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void setAside(Path path) throws IOException {
        Files.move(path, path.resolveSibling(path.getFileName() + ".stale"), StandardCopyOption.REPLACE_EXISTING);
    }

    /** Reads whole, intact records into the map; returns the byte offset after the last of them. */
    private static long read(Path path, Map<Key, Tensor> embeddings, long[] count) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 1 << 16))) {
            in.skipNBytes(FormatTag.SIZE);
            RecordReader records = new RecordReader(in, FormatTag.SIZE, Files.size(path), 4, MAX_RECORD, "record");
            while (true) {
                long valid = records.validLength();
                Optional<byte[]> body;
                try {
                    body = records.next();
                }
                catch (TornRecordException torn) {
                    return valid;
                }
                if (body.isEmpty()) return valid;
                try {
                    decode(body.get(), embeddings);
                    count[0]++;
                }
                catch (RuntimeException corrupt) {
                    return valid;
                }
            }
        }
    }

    private static void decode(byte[] record, Map<Key, Tensor> embeddings) {
        int keyLength = ((record[0] & 0xff) << 24) | ((record[1] & 0xff) << 16) | ((record[2] & 0xff) << 8) | (record[3] & 0xff);
        if (keyLength < 0 || keyLength > record.length - 4) throw new IllegalArgumentException("Bad key length " + keyLength);
        Key key = decodeKey(new String(record, 4, keyLength, StandardCharsets.UTF_8));
        byte[] tensor = Arrays.copyOfRange(record, 4 + keyLength, record.length);
        embeddings.put(key, TypedBinaryFormat.decode(Optional.of(key.type()), GrowableByteBuffer.wrap(tensor)));
    }

    private static byte[] encode(Key key) {
        return (key.destination() + '\n' + key.type().toString() + '\n' + key.text()).getBytes(StandardCharsets.UTF_8);
    }

    private static Key decodeKey(String encoded) {
        int first = encoded.indexOf('\n');
        int second = encoded.indexOf('\n', first + 1);
        if (first < 0 || second < 0) throw new IllegalArgumentException("Bad key");
        return new Key(encoded.substring(second + 1), encoded.substring(0, first), TensorType.fromSpec(encoded.substring(first + 1, second)));
    }

}
