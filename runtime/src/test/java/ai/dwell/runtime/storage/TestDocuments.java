package ai.dwell.runtime.storage;

import com.yahoo.document.ArrayDataType;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.TensorDataType;
import com.yahoo.document.WeightedSetDataType;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

/** Document types and documents for the storage tests: a "comment" with every kind of field, and an "author". */
final class TestDocuments {

    static final TensorType EMBEDDING = TensorType.fromSpec("tensor<float>(x[3])");

    private final DocumentTypeManager types = new DocumentTypeManager();
    private final DocumentType comment;
    private final DocumentType author;

    TestDocuments() {
        DocumentType comment = new DocumentType("comment");
        comment.addField("text", DataType.STRING);
        comment.addField("votes", DataType.INT);
        comment.addField("created", DataType.LONG);
        comment.addField("score", DataType.FLOAT);
        comment.addField("tags", new ArrayDataType(DataType.STRING));
        comment.addField("labels", new WeightedSetDataType(DataType.STRING, false, false));
        comment.addField("embedding", new TensorDataType(EMBEDDING));
        DocumentType author = new DocumentType("author");
        author.addField("name", DataType.STRING);
        this.comment = types.registerDocumentType(comment);
        this.author = types.registerDocumentType(author);
    }

    DocumentTypeManager types() { return types; }

    static DocumentId commentId(int n) { return new DocumentId("id:test:comment::" + n); }

    /** A comment whose every field is derived from n, so content can be checked from the id alone. */
    Document comment(int n) {
        Document document = new Document(comment, commentId(n));
        document.setFieldValue("text", new StringFieldValue("comment number " + n));
        document.setFieldValue("votes", new IntegerFieldValue(n % 100));
        document.setFieldValue("created", new LongFieldValue(1_700_000_000_000L + n));
        document.setFieldValue("score", new FloatFieldValue(n / 4.0f));
        Array<StringFieldValue> tags = new Array<>(comment.getField("tags").getDataType());
        tags.add(new StringFieldValue("tag" + n % 7));
        tags.add(new StringFieldValue("tag" + n % 11));
        document.setFieldValue("tags", tags);
        WeightedSet<StringFieldValue> labels = new WeightedSet<>(comment.getField("labels").getDataType());
        labels.put(new StringFieldValue("label" + n % 3), n % 5 + 1);
        document.setFieldValue("labels", labels);
        document.setFieldValue("embedding", new TensorFieldValue(Tensor.Builder.of(EMBEDDING)
                                                                               .cell(n, 0).cell(n + 0.5, 1).cell(-n, 2)
                                                                               .build()));
        return document;
    }

    DocumentPut putComment(int n) { return new DocumentPut(comment(n)); }

    Document author(String name) {
        Document document = new Document(author, "id:test:author::" + name);
        document.setFieldValue("name", new StringFieldValue(name));
        return document;
    }

    DocumentUpdate updateComment(DocumentId id) { return new DocumentUpdate(comment, id); }

    DocumentUpdate incrementVotes(DocumentId id, int by) {
        DocumentUpdate update = updateComment(id);
        update.addFieldUpdate(FieldUpdate.createIncrement(comment.getField("votes"), by));
        return update;
    }

    DocumentType commentType() { return comment; }

}
