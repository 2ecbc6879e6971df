package ai.dwell.runtime.index;

import com.yahoo.compress.CompressionType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.serialization.DocumentDeserializer;
import com.yahoo.document.serialization.DocumentDeserializerFactory;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.vespa.objects.BufferSerializer;

import java.nio.charset.StandardCharsets;

/**
 * Reads a document's id, or one of its fields, from the document as Vespa's serializer wrote it (format version 8),
 * without decoding the rest: a summary needs its id and a field or two (the text), not every field of the document,
 * whose decoding (references parsed into document ids, a value object per field) was 40% of the content nodes' summary
 * work. The field's value is decoded by Vespa's own deserializer, positioned at it.
 *
 * <p>Layout read: version (short), length (int), the id (null-terminated UTF-8), a content byte, the type's name
 * (null-terminated) and version (short), then for each struct the content byte announces (0x2, 0x4): its data size
 * (int), a compression code (byte), the number of fields, each field's id and length, then the fields' data in that
 * order. A compressed struct (which this runtime never writes) is reported as unreadable: the caller decodes the whole
 * document instead.
 */
final class StoredFieldReader {

    /** What {@link #field} returns when the document's form is one it does not read; decode the whole document. */
    static final FieldValue UNREADABLE = new com.yahoo.document.datatypes.StringFieldValue("(unreadable)");

    private static final int VERSION = 8;

    private StoredFieldReader() {}

    /** The document's id as it was serialized, or null if the form is not the one read here. */
    static String documentId(byte[] document) {
        if (document.length < 7 || version(document) != VERSION) return null;
        int end = nullByte(document, 6);
        return end < 0 ? null : new String(document, 6, end - 6, StandardCharsets.UTF_8);
    }

    /**
     * The value of the field in the document, decoded; null if the document has no value for it; {@link #UNREADABLE}
     * if the form is not the one read here.
     */
    static FieldValue field(DocumentTypeManager types, byte[] document, Field field) {
        if (document.length < 7 || version(document) != VERSION) return UNREADABLE;
        int idEnd = nullByte(document, 6);
        if (idEnd < 0) return UNREADABLE;
        byte content = document[idEnd + 1];
        int typeEnd = nullByte(document, idEnd + 2);
        if (typeEnd < 0) return UNREADABLE;
        DocumentDeserializer deserializer = DocumentDeserializerFactory.createHead(types, GrowableByteBuffer.wrap(document));
        BufferSerializer in = (BufferSerializer) deserializer;
        int position = typeEnd + 1 + 2; // past the type's name and its version
        for (int part : new int[] { 0x2, 0x4 }) {
            if ((content & part) == 0) continue;
            in.position(position);
            int dataSize = in.getInt(null);
            if (CompressionType.valueOf(in.getByte(null)) != CompressionType.NONE) return UNREADABLE;
            int fields = in.getInt1_4Bytes(null);
            int wanted = field.getId(), offset = -1, skipped = 0;
            for (int i = 0; i < fields; i++) {
                int id = in.getInt1_4Bytes(null);
                long length = in.getInt2_4_8Bytes(null);
                if (id == wanted && offset < 0) offset = skipped;
                skipped += (int) length;
            }
            int data = in.position();
            if (offset >= 0) {
                in.position(data + offset);
                FieldValue value = field.getDataType().createFieldValue();
                value.deserialize(field, deserializer);
                return value;
            }
            position = data + dataSize;
        }
        return null;
    }

    private static int version(byte[] document) {
        return (short) (((document[0] & 0xff) << 8) | (document[1] & 0xff));
    }

    private static int nullByte(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++)
            if (bytes[i] == 0) return i;
        return -1;
    }

}
