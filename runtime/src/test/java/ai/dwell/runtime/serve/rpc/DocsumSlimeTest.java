package ai.dwell.runtime.serve.rpc;

import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Inspector;
import com.yahoo.slime.Type;
import com.yahoo.tensor.serialization.TypedBinaryFormat;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class DocsumSlimeTest {

    @Test
    void docsumsAreInOrderWithMissingOnesEmptyAndErrorsInOneArray() {
        DocsumSlime docsums = new DocsumSlime();
        docsums.addDocsum().setString("title", "Foo Fighters");
        docsums.addMissing();
        DocsumSlime.setTensor(docsums.addDocsum(), "embedding", FixedBackend.EMBEDDING);
        docsums.addError("timeout", "Timed out 1 summaries");
        docsums.addError("error", "Disk is slow");

        Inspector root = BinaryFormat.decode(docsums.toByteString().toByteArray()).get();
        Inspector entries = root.field("docsums");
        assertEquals(3, entries.entries());
        assertEquals("Foo Fighters", entries.entry(0).field("docsum").field("title").asString());
        assertEquals(Type.OBJECT, entries.entry(1).type());
        assertFalse(entries.entry(1).field("docsum").valid());
        Inspector embedding = entries.entry(2).field("docsum").field("embedding");
        assertEquals(Type.DATA, embedding.type());
        assertEquals(FixedBackend.EMBEDDING, TypedBinaryFormat.decode(Optional.empty(), GrowableByteBuffer.wrap(embedding.asData())));
        Inspector errors = root.field("errors");
        assertEquals(2, errors.entries());
        assertEquals("timeout", errors.entry(0).field("type").asString());
        assertEquals("Disk is slow", errors.entry(1).field("message").asString());
    }

}
