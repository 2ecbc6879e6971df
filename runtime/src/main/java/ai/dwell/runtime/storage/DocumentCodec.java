package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.serialization.DeserializationException;
import com.yahoo.document.serialization.DocumentDeserializerFactory;
import com.yahoo.document.serialization.DocumentSerializerFactory;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Turns documents and document ids into bytes and back, with Vespa's own binary document format. */
final class DocumentCodec {

    private final DocumentTypeManager types;

    DocumentCodec(DocumentTypeManager types) {
        this.types = types;
    }

    /**
     * Encodes the tensors of a document that the caller owns into their serialized form, which serialization
     * then uses. Vespa's tensor encoder allocates a 64 KiB buffer per tensor, which made that most of the cost
     * of a put; this sizes the buffer to the tensor. The tensors are decoded again when first read.
     */
    void encodeTensors(Document owned) {
        for (Field field : owned.getDataType().getFields()) {
            if (owned.getFieldValue(field) instanceof TensorFieldValue value && value.getTensor().isPresent()) {
                Tensor tensor = value.getTensor().get();
                GrowableByteBuffer buffer = new GrowableByteBuffer(64 + 16 * (int) Math.min(tensor.size(), 1 << 16));
                TypedBinaryFormat.encode(tensor, buffer);
                value.assignSerializedTensor(Arrays.copyOf(buffer.array(), buffer.position()));
            }
        }
    }

    byte[] serialize(Document document) {
        GrowableByteBuffer buffer = new GrowableByteBuffer(1024);
        DocumentSerializerFactory.createHead(buffer).write(document);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    Document deserialize(byte[] bytes) {
        return new Document(DocumentDeserializerFactory.createHead(types, GrowableByteBuffer.wrap(bytes)));
    }

    /**
     * Reads only the id of a serialized document, without decoding its fields, and checks that its type is
     * known, as decoding the whole document would.
     *
     * @throws DeserializationException if the bytes are not a document of a known type
     */
    DocumentId documentId(byte[] serializedDocument) {
        GrowableByteBuffer buffer = GrowableByteBuffer.wrap(serializedDocument);
        short version = buffer.getShort();
        if (version != Document.SERIALIZED_VERSION)
            throw new DeserializationException("Unknown document serialization version " + version);
        buffer.getInt(); // the length of the rest of the document
        DocumentId id = DocumentDeserializerFactory.createHead(types, buffer).readDocumentId();
        if ( ! id.hasDocType() || ! types.hasDocumentType(id.getDocType()))
            throw new DeserializationException("No known document type for '" + id + "'");
        return id;
    }

    byte[] serialize(DocumentId id) {
        return id.toString().getBytes(StandardCharsets.UTF_8);
    }

    DocumentId deserializeId(byte[] bytes) {
        return new DocumentId(new String(bytes, StandardCharsets.UTF_8));
    }

}
