package ai.dwell.runtime.index;

import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The documents a comment index keeps for summaries and updates, put through the package's indexing
 * (linguistics and the minilm embedding): they come back whole, as copies of their own, without
 * linguistics annotations; the embedding's cells are kept once, by the vector index, and not in the
 * serialized document.
 */
public class DocumentIndexTest {

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private DocumentIndex index;
    private DocumentType type;

    @BeforeAll
    static void loadPackage() {
        cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
    }

    @BeforeEach
    void setUp() {
        type = indexing.documentTypes().getDocumentType("comment");
        index = new DocumentIndex(cluster.schema("comment"), indexing.documentTypes());
        index.importFrom(Map.of("comment", index, "author", new DocumentIndex(cluster.schema("author"), indexing.documentTypes())));
    }

    @Test
    void aDocumentComesBackWholeAsACopyOfItsOwn() {
        Document indexed = put("c1", "The referee was wrong about the penalty", 3);
        int lid = lid("c1");

        Document stored = index.document(lid);
        assertEquals(indexed.getId(), stored.getId());
        for (String field : new String[] { "comment_id", "article_id", "upvotes" })
            assertEquals(indexed.getFieldValue(field), stored.getFieldValue(field), field);
        assertEquals(text(indexed), text(stored));
        assertEquals(embedding(indexed), embedding(stored), "the embedding is put back from the vector index");
        assertNull(((StringFieldValue) stored.getFieldValue("text")).getSpanTreeMap(), "no linguistics annotations are kept");
        assertNotNull(((StringFieldValue) indexed.getFieldValue("text")).getSpanTreeMap(), "the indexed document had them");

        stored.setFieldValue("upvotes", new IntegerFieldValue(1000));
        assertEquals(new IntegerFieldValue(3), index.document(lid).getFieldValue("upvotes"), "a read copy is the caller's");
        assertNotSame(index.document(lid), index.document(lid));
        assertEquals(stored.getId(), index.get(new DocumentId("id:dwell:comment::c1")).orElseThrow().getId());
    }

    @Test
    void theEmbeddingIsKeptOnceByTheVectorIndex() {
        Document indexed = put("c1", "A short comment on the match", 0);
        int lid = lid("c1");
        TensorAttribute attribute = (TensorAttribute) index.attribute("embedding").orElseThrow();

        assertTrue(attribute.keepsCellsInVectorIndex());
        assertEquals(embedding(indexed), attribute.tensor(lid), "ranking and summaries read it from the vector index");
        // 384 floats alone serialize to over 1.5 KB; the rest of a short comment to a few hundred bytes
        assertTrue(index.documentBytes() < 600, "the serialized document holds no vector: " + index.documentBytes() + " bytes");
    }

    @Test
    void anUpdatedDocumentKeepsItsEmbedding() {
        Document indexed = put("c1", "Great analysis of the game", 1);
        int lid = lid("c1");
        Document updated = index.document(lid);
        updated.setFieldValue("upvotes", new IntegerFieldValue(2));
        assertEquals(lid, index.put(updated, Set.of("upvotes")));

        assertEquals(2, index.attribute("upvotes").orElseThrow().longValue(lid));
        assertEquals(new IntegerFieldValue(2), index.document(lid).getFieldValue("upvotes"));
        assertEquals(embedding(indexed), embedding(index.document(lid)));
        assertEquals(embedding(indexed), ((TensorAttribute) index.attribute("embedding").orElseThrow()).tensor(lid));
    }

    @Test
    void aRemovedDocumentIsGoneAndItsLocalIdServesTheNext() {
        put("c1", "First comment here", 0);
        int lid = lid("c1");
        long bytes = index.documentBytes();
        assertTrue(index.remove(new DocumentId("id:dwell:comment::c1")));
        assertNull(index.document(lid));
        assertEquals(0, index.documentBytes());
        assertNull(((TensorAttribute) index.attribute("embedding").orElseThrow()).value(lid));

        Document next = put("c2", "Second comment here", 5);
        assertEquals(lid, lid("c2"), "the freed local id is reused");
        assertEquals(text(next), text(index.document(lid)));
        assertEquals(embedding(next), embedding(index.document(lid)));
        assertTrue(index.documentBytes() > 0 && index.documentBytes() < 2 * bytes);
    }

    private Document put(String id, String text, int upvotes) {
        Document comment = new Document(type, new DocumentId("id:dwell:comment::" + id));
        comment.setFieldValue("comment_id", new StringFieldValue(id));
        comment.setFieldValue("article_id", new StringFieldValue("a1"));
        comment.setFieldValue("text", new StringFieldValue(text));
        comment.setFieldValue("upvotes", new IntegerFieldValue(upvotes));
        Document indexed = indexing.process(comment);
        index.put(indexed);
        return indexed;
    }

    private int lid(String id) { return index.localId(DocumentIndex.globalId(new DocumentId("id:dwell:comment::" + id))); }

    private static String text(Document document) { return ((StringFieldValue) document.getFieldValue("text")).getString(); }

    private static Tensor embedding(Document document) {
        return ((TensorFieldValue) document.getFieldValue("embedding")).getTensor().orElseThrow();
    }

}
