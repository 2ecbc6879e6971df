package ai.dwell.runtime.engine;

import ai.dwell.runtime.format.StateFile;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.SchemaConfigs;
import com.yahoo.config.ConfigInstance;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;

import com.yahoo.vespa.config.search.IndexschemaConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;

/**
 * The flushed state of one document type on one content node: a {@link StateFile} named {@code <type>.index}
 * in the node's directory, whose serial is the newest store timestamp it holds and whose body is a format
 * version, the fingerprint of everything that decides the type's index content, and the index itself
 * ({@link DocumentIndex#writeState}). A state whose fingerprint differs from the deployed one's is not used.
 */
public final class IndexStateFile {

    static final int MAGIC = 0x44574958; // "DWIX"
    /** 2: struct-field attributes hold their values (version 1 left them empty), so a version 1 state is rebuilt. */
    static final int FORMAT_VERSION = 2;

    /** The state file was written for another schema, indexing or format: the type is rebuilt. */
    public static final class MismatchException extends IOException {
        MismatchException(String message) { super(message); }
    }

    private final Path file;
    private final String fingerprint;

    IndexStateFile(Path directory, String type, String fingerprint) {
        this.file = directory.resolve(type + ".index");
        this.fingerprint = fingerprint;
    }

    public Path path() { return file; }

    /** Writes the index's state atomically and durably; returns its size. The caller keeps writes out meanwhile. */
    long write(DocumentIndex index) throws IOException {
        return StateFile.write(file, MAGIC, index.newestTimestamp(), out -> {
            out.writeInt(FORMAT_VERSION);
            out.writeString(fingerprint);
            index.writeState(out);
        });
    }

    /** Loads the state into the new, empty index; throws CorruptStateException or MismatchException if it is not usable. */
    long read(DocumentIndex index) throws IOException {
        StateFile.removeTemporary(file); // a flush a crash interrupted: the previous state (if any) is what counts
        return StateFile.read(file, MAGIC, in -> {
            int version = in.readInt();
            if (version != FORMAT_VERSION) throw new MismatchException("format version " + version + ", not " + FORMAT_VERSION);
            String found = in.readString();
            if ( ! found.equals(fingerprint)) throw new MismatchException("it was written for another schema or indexing (fingerprint " + found + ", now " + fingerprint + ")");
            index.readState(in);
            return index.documentCount();
        }).serial();
    }

    /**
     * The fingerprint of what decides a type's index content: its attributes, index schema and imported fields,
     * the type's document fields, and what the caller adds (the type's indexing statements and the identity of the
     * embedders they use). Rank profiles and summaries are not in it: changing those reuses the state.
     */
    static String fingerprint(ContentClusterConfig cluster, SchemaConfigs schema, String indexing) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (ConfigInstance config : new ConfigInstance[] { schema.attributes(), schema.indexSchema(), schema.importedFields() }) {
                for (String line : ConfigInstance.serialize(config)) digest.update((line + "\n").getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            digest.update(documentType(cluster, schema.name()).getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(schema.name().getBytes(StandardCharsets.UTF_8));
            digest.update((byte) 0);
            digest.update(indexing.getBytes(StandardCharsets.UTF_8));
            // The weights of weighted set index fields (each term's, and since the element weights are kept, each
            // element's) are in the state: an earlier state of such a type has none, so it is not loaded (a type without
            // such a field keeps the fingerprint it had)
            if (schema.indexSchema().indexfield().stream().anyMatch(f -> f.collectiontype() == IndexschemaConfig.Indexfield.Collectiontype.WEIGHTEDSET))
                digest.update("\0text-index-weights\0text-index-element-weights".getBytes(StandardCharsets.UTF_8));
            // The element counts of array and weighted set index fields (for the average element length) are in the state
            // since they are kept: an earlier state of such a type has none, so it is not loaded
            if (schema.indexSchema().indexfield().stream().anyMatch(f -> f.collectiontype() != IndexschemaConfig.Indexfield.Collectiontype.SINGLE))
                digest.update("\0text-index-element-counts".getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest.digest());
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The type's own fields (name, id, data type and its id, which covers struct contents), not the whole document manager
     * config: a field added to another type does not change this type's documents.
     */
    private static String documentType(ContentClusterConfig cluster, String name) {
        DocumentType type = new DocumentTypeManager(cluster.documentManager()).getDocumentType(name);
        if (type == null) return "";
        StringBuilder text = new StringBuilder(type.getName()).append(' ').append(type.getId()).append('\n');
        type.fieldSet().stream().sorted(Comparator.comparing(Field::getName))
            .forEach(field -> text.append(field.getName()).append(' ').append(field.getId()).append(' ')
                                  .append(field.getDataType().getName()).append(' ').append(field.getDataType().getId()).append('\n'));
        return text.toString();
    }

}
