package ai.dwell.runtime.index;

import com.yahoo.document.ArrayDataType;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;
import com.yahoo.document.MapDataType;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.StructDataType;
import com.yahoo.document.TensorDataType;
import com.yahoo.document.WeightedSetDataType;
import com.yahoo.document.annotation.Annotation;
import com.yahoo.document.annotation.AnnotationTypes;
import com.yahoo.document.annotation.Span;
import com.yahoo.document.annotation.SpanList;
import com.yahoo.document.annotation.SpanTree;
import com.yahoo.document.annotation.SpanTrees;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.BoolFieldValue;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.MapFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.Struct;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.document.serialization.DocumentSerializerFactory;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A summary's id and fields read from the stored form one field at a time are what decoding the whole document gives,
 * for every kind of field (span trees of an annotated field included), with fields left unset at random; a form the
 * reader does not know is reported so that the caller decodes the whole document.
 */
public class StoredFieldReaderTest {

    private static final TensorType TAGS = TensorType.fromSpec("tensor<float>(tag{})");

    private final DocumentTypeManager types = new DocumentTypeManager();
    private DocumentType type;
    private SerializedDocuments documents;

    @BeforeEach
    void setUp() {
        DocumentType author = types.registerDocumentType(new DocumentType("author"));
        StructDataType position = new StructDataType("position");
        position.addField(new Field("x", DataType.INT));
        position.addField(new Field("label", DataType.STRING));
        DocumentType comment = new DocumentType("comment");
        comment.addField("text", DataType.STRING);
        comment.addField("body", DataType.STRING);
        comment.addField("votes", DataType.INT);
        comment.addField("created", DataType.LONG);
        comment.addField("score", DataType.FLOAT);
        comment.addField("ratio", DataType.DOUBLE);
        comment.addField("flag", DataType.BOOL);
        comment.addField("tags", new ArrayDataType(DataType.STRING));
        comment.addField("labels", new WeightedSetDataType(DataType.INT, false, false));
        comment.addField("counts", new MapDataType(DataType.STRING, DataType.INT));
        comment.addField("where", position);
        comment.addField("places", new ArrayDataType(position));
        comment.addField("weights", new TensorDataType(TAGS));
        comment.addField("author_ref", new ReferenceDataType(author, 0x6d8c01b3));
        type = types.registerDocumentType(comment);
        documents = new SerializedDocuments(types, Set.of(), Set.of("body"));
    }

    @Test
    void fieldsReadOneAtATimeAreTheDecodedDocuments() {
        Random random = new Random(17);
        int checked = 0;
        for (int lid = 1; lid <= 300; lid++) {
            documents.put(lid, document(lid, random));
            Document decoded = documents.get(lid);
            assertEquals(decoded.getId().toString(), documents.documentId(lid));
            byte[] stored = serialize(decoded); // the form the store keeps: read by the reader itself, not its fallback
            assertEquals(decoded.getId().toString(), StoredFieldReader.documentId(stored));
            for (Field field : type.getFields()) {
                FieldValue expected = decoded.getFieldValue(field);
                assertEquals(expected, StoredFieldReader.field(types, stored, field), "field " + field.getName() + " of document " + lid);
                FieldValue read = documents.fieldValue(lid, field);
                assertEquals(expected, read, "field " + field.getName() + " of document " + lid);
                if (expected instanceof StringFieldValue string)
                    assertEquals(string.getSpanTreeMap(), ((StringFieldValue) read).getSpanTreeMap(), "span trees of " + field.getName());
                if (expected != null) checked++;
            }
        }
        assertEquals(true, checked > 2000, "most fields were set: " + checked);
        assertNull(documents.documentId(301));
        assertNull(documents.fieldValue(301, type.getField("text")));
    }

    @Test
    void anUnknownFormIsLeftToTheWholeDocumentsDecoding() {
        documents.put(1, document(1, new Random(3)));
        byte[] serialized = serialize(documents.get(1));
        Field text = type.getField("text");
        assertEquals(new StringFieldValue("comment ɡ 1 ☃"), StoredFieldReader.field(types, serialized, text));
        byte[] otherVersion = Arrays.copyOf(serialized, serialized.length);
        otherVersion[1] = 7;
        assertSame(StoredFieldReader.UNREADABLE, StoredFieldReader.field(types, otherVersion, text));
        assertNull(StoredFieldReader.documentId(otherVersion));
        assertSame(StoredFieldReader.UNREADABLE, StoredFieldReader.field(types, new byte[3], text));
    }

    private Document document(int n, Random random) {
        Document document = new Document(type, new DocumentId("id:test:comment::ü-" + n + "/x?y=" + n));
        document.setFieldValue("text", new StringFieldValue("comment ɡ " + n + " ☃"));
        if (random.nextInt(4) != 0) document.setFieldValue("body", annotated("the body of comment " + n));
        if (random.nextInt(4) != 0) document.setFieldValue("votes", new IntegerFieldValue(random.nextInt(1000) - 500));
        if (random.nextInt(4) != 0) document.setFieldValue("created", new LongFieldValue(random.nextLong()));
        if (random.nextInt(4) != 0) document.setFieldValue("score", new FloatFieldValue(random.nextFloat()));
        if (random.nextInt(4) != 0) document.setFieldValue("ratio", new DoubleFieldValue(random.nextGaussian()));
        if (random.nextInt(4) != 0) document.setFieldValue("flag", new BoolFieldValue(random.nextBoolean()));
        if (random.nextInt(4) != 0) {
            Array<StringFieldValue> tags = new Array<>(type.getField("tags").getDataType());
            for (int i = random.nextInt(4); i > 0; i--) tags.add(new StringFieldValue("tag" + random.nextInt(50)));
            document.setFieldValue("tags", tags);
        }
        if (random.nextInt(4) != 0) {
            WeightedSet<IntegerFieldValue> labels = new WeightedSet<>(type.getField("labels").getDataType());
            for (int i = random.nextInt(4); i > 0; i--) labels.put(new IntegerFieldValue(random.nextInt(20)), random.nextInt(100) - 50);
            document.setFieldValue("labels", labels);
        }
        if (random.nextInt(4) != 0) {
            MapFieldValue<StringFieldValue, IntegerFieldValue> counts = new MapFieldValue<>((MapDataType) type.getField("counts").getDataType());
            for (int i = random.nextInt(4); i > 0; i--) counts.put(new StringFieldValue("k" + random.nextInt(9)), new IntegerFieldValue(random.nextInt()));
            document.setFieldValue("counts", counts);
        }
        StructDataType positionType = (StructDataType) type.getField("where").getDataType();
        if (random.nextInt(4) != 0) document.setFieldValue("where", position(positionType, random));
        if (random.nextInt(4) != 0) {
            Array<Struct> places = new Array<>(type.getField("places").getDataType());
            for (int i = random.nextInt(3); i > 0; i--) places.add(position(positionType, random));
            document.setFieldValue("places", places);
        }
        if (random.nextInt(4) != 0)
            document.setFieldValue("weights", new TensorFieldValue(Tensor.Builder.of(TAGS).cell().label("tag", "a" + n).value(random.nextFloat()).build()));
        if (random.nextInt(4) != 0)
            document.setFieldValue("author_ref", new ReferenceFieldValue((ReferenceDataType) type.getField("author_ref").getDataType(),
                                                                        new DocumentId("id:test:author::" + random.nextInt(100))));
        return document;
    }

    private static Struct position(StructDataType type, Random random) {
        Struct position = new Struct(type);
        position.setFieldValue("x", new IntegerFieldValue(random.nextInt(100)));
        if (random.nextBoolean()) position.setFieldValue("label", new StringFieldValue("p" + random.nextInt(10)));
        return position;
    }

    /** A string with a linguistics span tree: a term annotation on each word. */
    private static StringFieldValue annotated(String text) {
        StringFieldValue value = new StringFieldValue(text);
        SpanList root = new SpanList();
        SpanTree tree = new SpanTree(SpanTrees.LINGUISTICS, root);
        int from = 0;
        for (String word : text.split(" ")) {
            Span span = new Span(from, word.length());
            root.add(span);
            tree.annotate(span, new Annotation(AnnotationTypes.TERM));
            from += word.length() + 1;
        }
        value.setSpanTree(tree);
        return value;
    }

    private static byte[] serialize(Document document) {
        GrowableByteBuffer buffer = new GrowableByteBuffer(256);
        DocumentSerializerFactory.createHead(buffer).write(document);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

}
