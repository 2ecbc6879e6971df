package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.rank.TensorBytes;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

/**
 * The embeddings one embedder computed for indexing, kept in a file of the data directory so that a
 * restart indexes the stored documents without embedding every text again: Vespa keeps a document's
 * embedding with the document, computed once when it was written; the runtime keeps the input document
 * and runs the indexing statements again on start. Each distinct text is appended once, as it is first
 * embedded. The file is a cache, not the record of truth: it is flushed, not fsynced, and a torn or corrupt
 * tail (a crash while appending, or blocks the file system extended with zeros) is cut off when read, from
 * the first record whose checksum fails: a wrong embedding must never be indexed. Appends are thread safe.
 *
 * <p>The file begins with {@link #MAGIC} and {@link #VERSION} (int32 each); a file with another beginning is
 * set aside. Then records, big-endian: the body's length (int32), the CRC32C of the body (int32), and the
 * body: the key's length (int32), the key (destination, tensor type and text, UTF-8) and the tensor in
 * Vespa's binary format.
 */
public final class EmbeddingFile implements AutoCloseable {

    private static final Logger log = Logger.getLogger(EmbeddingFile.class.getName());
    private static final int MAX_RECORD = 64 << 20;
    static final int MAGIC = 0x64776c65; // "dwle"
    static final int VERSION = 2;
    private static final int HEADER_SIZE = 8;

    /** What an embedding is of: the text, where it goes and the type asked for. */
    public record Key(String text, String destination, TensorType type) {}

    private final Path path;
    private final DataOutputStream out;
    private boolean failed = false;

    private EmbeddingFile(Path path) throws IOException {
        this.path = path;
        this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE,
                                                                                        StandardOpenOption.APPEND), 1 << 16));
        if (Files.size(path) == 0) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.flush();
        }
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
            Map<Key, Tensor> embeddings = new HashMap<>();
            long start = System.nanoTime();
            if (Files.exists(path) && ! hasHeader(path)) {
                log.info(path + " is not an embeddings file of this version; setting it aside");
                setAside(path);
            }
            if (Files.exists(path)) {
                long valid = read(path, embeddings);
                if (valid < Files.size(path)) {
                    log.warning("Cutting a torn tail off " + path + " at byte " + valid + " of " + Files.size(path));
                    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) { channel.truncate(valid); }
                }
                Optional<Map.Entry<Key, Tensor>> sample = embeddings.entrySet().stream().findFirst();
                if (sample.isPresent() && ! sameEmbedder.test(sample.get())) {
                    log.info("The embedder gives other embeddings than " + path + " holds; setting it aside");
                    setAside(path);
                    embeddings.clear();
                }
                else {
                    log.info(String.format("Read %,d embeddings from %s in %d ms", embeddings.size(), path, (System.nanoTime() - start) / 1_000_000));
                }
            }
            return new Loaded(new EmbeddingFile(path), embeddings);
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
            out.writeInt(body.length);
            out.writeInt(checksum(body));
            out.write(body);
            out.flush();
        }
        catch (IOException | RuntimeException e) {
            log.warning("Could not append to " + path + ", embeddings are no longer kept: " + e.getMessage());
            failed = true;
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        }
        catch (IOException e) {
            log.warning("Could not close " + path + ": " + e.getMessage());
        }
    }

    private static boolean hasHeader(Path path) throws IOException {
        try (DataInputStream in = new DataInputStream(Files.newInputStream(path))) {
            return Files.size(path) >= HEADER_SIZE && in.readInt() == MAGIC && in.readInt() == VERSION;
        }
    }

    private static void setAside(Path path) throws IOException {
        Files.move(path, path.resolveSibling(path.getFileName() + ".stale"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static int checksum(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return (int) crc.getValue();
    }

    /** Reads whole, intact records into the map; returns the byte offset after the last of them. */
    private static long read(Path path, Map<Key, Tensor> embeddings) throws IOException {
        long valid = HEADER_SIZE;
        try (InputStream input = Files.newInputStream(path);
             DataInputStream in = new DataInputStream(new BufferedInputStream(input, 1 << 16))) {
            in.skipNBytes(HEADER_SIZE);
            while (true) {
                int length, checksum;
                byte[] body;
                try {
                    length = in.readInt();
                    if (length < 4 || length > MAX_RECORD) return valid;
                    checksum = in.readInt();
                    body = new byte[length];
                    in.readFully(body);
                }
                catch (EOFException torn) {
                    return valid;
                }
                if (checksum(body) != checksum) return valid;
                try {
                    decode(body, embeddings);
                }
                catch (RuntimeException corrupt) {
                    return valid;
                }
                valid += 8 + length;
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
