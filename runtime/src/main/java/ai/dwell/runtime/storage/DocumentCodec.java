package ai.dwell.runtime.storage;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.serialization.DocumentDeserializerFactory;
import com.yahoo.document.serialization.DocumentSerializerFactory;
import com.yahoo.io.GrowableByteBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Turns documents and document ids into bytes and back, with Vespa's own binary document format. */
final class DocumentCodec {

    private final DocumentTypeManager types;

    DocumentCodec(DocumentTypeManager types) {
        this.types = types;
    }

    byte[] serialize(Document document) {
        GrowableByteBuffer buffer = new GrowableByteBuffer(1024);
        DocumentSerializerFactory.createHead(buffer).write(document);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    Document deserialize(byte[] bytes) {
        return new Document(DocumentDeserializerFactory.createHead(types, GrowableByteBuffer.wrap(bytes)));
    }

    byte[] serialize(DocumentId id) {
        return id.toString().getBytes(StandardCharsets.UTF_8);
    }

    DocumentId deserializeId(byte[] bytes) {
        return new DocumentId(new String(bytes, StandardCharsets.UTF_8));
    }

}
