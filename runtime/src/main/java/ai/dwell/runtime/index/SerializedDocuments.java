package ai.dwell.runtime.index;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.serialization.DocumentDeserializerFactory;
import com.yahoo.document.serialization.DocumentSerializerFactory;
import com.yahoo.io.GrowableByteBuffer;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The documents of one index by local id, kept in Vespa's binary document format for summaries and
 * updates, as proton's document store keeps them serialized. Left out is what the index keeps
 * elsewhere or no longer needs: linguistics span trees (the text index has the terms), except those of the fields
 * dynamic and tokens summaries are made from (juniper and the tokens writer read the annotations, as in proton's document store), and the cells
 * of the fields named as omitted (dense vectors, which their attribute keeps). A live {@code Document}
 * graph per document cost several times its serialized size; a document is decoded only for a
 * summary hit or an update.
 */
final class SerializedDocuments {

    private final DocumentTypeManager types;
    private final Set<String> omitted;
    private final Set<String> annotated;
    private byte[][] documents = new byte[0][];
    private long bytes = 0;

    SerializedDocuments(DocumentTypeManager types, Set<String> omitted) {
        this(types, omitted, Set.of());
    }

    /** Keeps the linguistics span trees of the annotated fields. */
    SerializedDocuments(DocumentTypeManager types, Set<String> omitted, Set<String> annotated) {
        this.types = types;
        this.omitted = Set.copyOf(omitted);
        this.annotated = Set.copyOf(annotated);
    }

    /** Keeps the document (not modified; nothing of it is retained) for the local id. */
    void put(int lid, Document document) {
        byte[] serialized = serialize(document);
        if (lid >= documents.length) documents = Arrays.copyOf(documents, Attribute.grow(documents.length, lid));
        clear(lid);
        documents[lid] = serialized;
        bytes += serialized.length;
    }

    void clear(int lid) {
        if (lid >= documents.length || documents[lid] == null) return;
        bytes -= documents[lid].length;
        documents[lid] = null;
    }

    /** A new copy of the document at the local id, without the omitted fields, or null if there is none. */
    Document get(int lid) {
        byte[] serialized = lid < documents.length ? documents[lid] : null;
        if (serialized == null) return null;
        return new Document(DocumentDeserializerFactory.createHead(types, GrowableByteBuffer.wrap(serialized)));
    }

    /** The id of the document at the local id, read without decoding the document, or null if there is none. */
    String documentId(int lid) {
        byte[] serialized = lid < documents.length ? documents[lid] : null;
        if (serialized == null) return null;
        String id = StoredFieldReader.documentId(serialized);
        return id != null ? id : get(lid).getId().toString();
    }

    /**
     * The value of one field of the document at the local id, decoding that field only, or null if there is no
     * document or it has no value for the field (or the field is one of the omitted).
     */
    FieldValue fieldValue(int lid, Field field) {
        byte[] serialized = lid < documents.length ? documents[lid] : null;
        if (serialized == null) return null;
        FieldValue value = StoredFieldReader.field(types, serialized, field);
        return value != StoredFieldReader.UNREADABLE ? value : get(lid).getFieldValue(field);
    }

    /** Writes the serialized documents of the local ids below lidLimit. */
    void writeState(ai.dwell.runtime.format.StateOutput out, int lidLimit) throws java.io.IOException {
        int length = Math.min(lidLimit, documents.length);
        int count = 0;
        for (int lid = 0; lid < length; lid++) if (documents[lid] != null) count++;
        out.writeInt(count);
        for (int lid = 0; lid < length; lid++) {
            if (documents[lid] == null) continue;
            out.writeInt(lid);
            out.writeBytes(documents[lid]);
        }
    }

    /** Restores what {@link #writeState} wrote into this empty store. */
    void readState(ai.dwell.runtime.format.StateInput in, int lidLimit) throws java.io.IOException {
        int count = in.readLength(8);
        documents = new byte[Math.max(16, lidLimit)][];
        for (int i = 0; i < count; i++) {
            int lid = in.readInt();
            if (lid <= 0 || lid >= lidLimit) throw new ai.dwell.runtime.format.CorruptStateException("Document at local id " + lid + " out of range");
            documents[lid] = in.readBytes();
            bytes += documents[lid].length;
        }
    }

    /** The bytes of the serialized documents (not counting array overhead). */
    long bytes() { return bytes; }

    private byte[] serialize(Document document) {
        Document kept = new Document(document.getDataType(), document.getId());
        for (Iterator<Map.Entry<Field, FieldValue>> fields = document.iterator(); fields.hasNext(); ) {
            Map.Entry<Field, FieldValue> field = fields.next();
            if (omitted.contains(field.getKey().getName())) continue;
            FieldValue value = field.getValue();
            if (value instanceof StringFieldValue string && string.getSpanTreeMap() != null && ! string.getSpanTreeMap().isEmpty()
                && ! annotated.contains(field.getKey().getName()))
                value = new StringFieldValue(string.getString());
            kept.setFieldValue(field.getKey(), value);
        }
        GrowableByteBuffer buffer = new GrowableByteBuffer(256);
        DocumentSerializerFactory.createHead(buffer).write(kept);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

}
