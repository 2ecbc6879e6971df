package ai.dwell.runtime.index;

import ai.dwell.runtime.engine.query.ProtobufQueryTree;
import ai.dwell.runtime.format.StateInput;
import ai.dwell.runtime.format.StateOutput;
import ai.dwell.runtime.match.QueryMatcher;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.document.update.ValueUpdate;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.WeightedSetItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.vespa.model.VespaModel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays and weighted sets of strings and numbers (tests/apps/tags: tags and prices with fast-search, labels, sizes
 * and codes without), fed, updated (add, remove, increment of a weight), removed and restored from flushed state,
 * then matched as the container sends terms, ranges and weightedSet items, against a reference kept here in plain
 * lists: a document matches when one of its elements does, strings folded (the attributes are uncased).
 */
public class MultiValueAttributeTest {

    private static final String[] WORDS = { "news", "Sport", "sport", "tech", "Art", "food", "zz" };

    private static ContentClusterConfig cluster;
    private static DocumentTypeManager types;
    private DocumentIndex index;
    private DocumentType type;
    private final Map<String, Document> documents = new LinkedHashMap<>(); // what the reference reads

    @BeforeEach
    void setUp() {
        if (cluster == null) {
            Path app = DwellPackage.root().resolve("tests/apps/tags");
            VespaModel model = DwellPackage.model(app);
            cluster = ContentClusterConfigs.from(model, "tags", app);
            types = new DocumentTypeManager(cluster.documentManager());
        }
        type = types.getDocumentType("item");
        index = new DocumentIndex(cluster.schema("item"), types);
        Random random = new Random(3);
        for (int i = 0; i < 400; i++) put(randomItem("i" + i, random));
        for (int i = 0; i < 400; i += 9) remove("i" + i);
        for (int i = 1; i < 400; i += 5) update("i" + i, random);
    }

    @Test
    void aDocumentMatchesWhenOneOfItsElementsDoes() {
        assertMatchesReference(index);
    }

    @Test
    void flushedStateMatchesAsBefore() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StateOutput out = new StateOutput(Channels.newChannel(bytes));
        index.writeState(out);
        out.flush();
        DocumentIndex restored = new DocumentIndex(cluster.schema("item"), types);
        byte[] state = bytes.toByteArray();
        restored.readState(new StateInput(Channels.newChannel(new java.io.ByteArrayInputStream(state)), state.length));
        assertMatchesReference(restored);
        MultiValueAttribute topics = (MultiValueAttribute) restored.attribute("topics").orElseThrow();
        for (Document document : documents.values()) {
            int lid = restored.localId(DocumentIndex.globalId(document.getId()));
            assertEquals(weight(document, "topics", "news"), topics.weight(lid, topics.key("news")), document.getId().toString());
        }
    }

    @Test
    void countWeightAndContainsAreWhatRankingReads() {
        MultiValueAttribute tags = (MultiValueAttribute) index.attribute("tags").orElseThrow();
        MultiValueAttribute topics = (MultiValueAttribute) index.attribute("topics").orElseThrow();
        MultiValueAttribute codes = (MultiValueAttribute) index.attribute("codes").orElseThrow();
        for (Document document : documents.values()) {
            int lid = index.localId(DocumentIndex.globalId(document.getId()));
            String id = document.getId().toString();
            assertEquals(elements(document, "tags").size(), tags.count(lid), id);
            for (String word : WORDS) {
                assertEquals(weight(document, "topics", word), topics.weight(lid, topics.key(word)), id + " " + word);
                assertEquals(elements(document, "topics").stream().anyMatch(e -> e.equalsIgnoreCase(word)), topics.contains(lid, topics.key(word)), id + " " + word);
            }
            assertEquals(weight(document, "codes", "7"), codes.weight(lid, codes.key("7")), id);
        }
        IllegalArgumentException sorted = assertThrows(IllegalArgumentException.class, () -> tags.value(1));
        assertTrue(sorted.getMessage().contains("'tags' is a multi-value attribute (array)"), sorted.getMessage());
    }

    private void assertMatchesReference(DocumentIndex index) {
        assertTrue(matches(index, new WordItem("Art", "labels")).size() > 20);
        assertTrue(matches(index, new IntItem("7", "codes")).size() > 20);
        assertTrue(matches(index, new WordItem("tech", "tags")).size() > 80); // updated in
        for (String word : WORDS) {
            for (String field : List.of("tags", "labels", "topics")) {
                String folded = word.toLowerCase(Locale.ROOT);
                assertEquals(expected(document -> elements(document, field).stream().anyMatch(e -> e.toLowerCase(Locale.ROOT).equals(folded))),
                             matches(index, new WordItem(word, field)), word + " in " + field);
            }
        }
        for (int size = 0; size < 6; size++) {
            String term = Integer.toString(size);
            assertEquals(expected(document -> elements(document, "sizes").contains(term)), matches(index, new IntItem(term, "sizes")), "sizes " + term);
        }
        assertEquals(expected(document -> elements(document, "sizes").stream().mapToInt(Integer::parseInt).anyMatch(v -> v >= 2 && v <= 3)),
                     matches(index, new IntItem("[2;3]", "sizes")));
        assertEquals(expected(document -> elements(document, "prices").stream().mapToDouble(Double::parseDouble).anyMatch(v -> v > 1.5)),
                     matches(index, new IntItem(">1.5", "prices")));
        assertEquals(expected(document -> elements(document, "codes").contains("7")), matches(index, new IntItem("7", "codes")));
        WeightedSetItem anyOf = new WeightedSetItem("topics");
        anyOf.addToken("tech", 3);
        anyOf.addToken("ART", 1);
        assertEquals(expected(document -> elements(document, "topics").stream().anyMatch(e -> e.equalsIgnoreCase("tech") || e.equalsIgnoreCase("art"))),
                     matches(index, anyOf));
    }

    private Document randomItem(String id, Random random) {
        Document item = new Document(type, new DocumentId("id:test:item::" + id));
        item.setFieldValue("name", new StringFieldValue(id));
        Array<StringFieldValue> tags = new Array<>(DataType.getArray(DataType.STRING));
        for (int i = random.nextInt(4); i > 0; i--) tags.add(new StringFieldValue(WORDS[random.nextInt(WORDS.length)]));
        if ( ! tags.isEmpty() || random.nextBoolean()) item.setFieldValue("tags", tags);
        Array<StringFieldValue> labels = new Array<>(DataType.getArray(DataType.STRING));
        for (int i = random.nextInt(3); i > 0; i--) labels.add(new StringFieldValue(WORDS[random.nextInt(WORDS.length)]));
        item.setFieldValue("labels", labels);
        Array<IntegerFieldValue> sizes = new Array<>(DataType.getArray(DataType.INT));
        for (int i = random.nextInt(3); i > 0; i--) sizes.add(new IntegerFieldValue(random.nextInt(6)));
        item.setFieldValue("sizes", sizes);
        Array<DoubleFieldValue> prices = new Array<>(DataType.getArray(DataType.DOUBLE));
        for (int i = random.nextInt(3); i > 0; i--) prices.add(new DoubleFieldValue(random.nextInt(40) / 10.0));
        item.setFieldValue("prices", prices);
        WeightedSet<StringFieldValue> topics = new WeightedSet<>(type.getField("topics").getDataType());
        for (int i = random.nextInt(3); i > 0; i--) topics.put(new StringFieldValue(WORDS[random.nextInt(WORDS.length)].toLowerCase(Locale.ROOT)), random.nextInt(20) - 5);
        item.setFieldValue("topics", topics);
        WeightedSet<LongFieldValue> codes = new WeightedSet<>(type.getField("codes").getDataType());
        for (int i = random.nextInt(3); i > 0; i--) codes.put(new LongFieldValue(random.nextInt(10)), random.nextInt(5) + 1);
        item.setFieldValue("codes", codes);
        return item;
    }

    /** Adds a tag, removes a topic and increments another's weight, as Vespa's document updates do. */
    @SuppressWarnings("unchecked")
    private void update(String id, Random random) {
        Document document = documents.get(id);
        if (document == null) return;
        DocumentUpdate update = new DocumentUpdate(type, document.getId());
        update.addFieldUpdate(FieldUpdate.create(type.getField("tags")).addValueUpdate(ValueUpdate.createAdd(new StringFieldValue("tech"))));
        update.addFieldUpdate(FieldUpdate.create(type.getField("topics"))
                                         .addValueUpdate(ValueUpdate.createRemove(new StringFieldValue(WORDS[random.nextInt(WORDS.length)].toLowerCase(Locale.ROOT))))
                                         .addValueUpdate(ValueUpdate.createIncrement(new StringFieldValue("news"), 4)));
        Document updated = new Document(document);
        update.applyTo(updated);
        index.put(updated, java.util.Set.of("tags", "topics"));
        documents.put(id, updated);
    }

    private void put(Document document) {
        index.put(document);
        documents.put(document.getId().getScheme().getNamespaceSpecific(), document);
    }

    private void remove(String id) {
        index.remove(new DocumentId("id:test:item::" + id));
        documents.remove(id);
    }

    /** The elements of a field as strings (keys of a weighted set), empty when the document has none. */
    private static List<String> elements(Document document, String field) {
        Object value = document.getFieldValue(field);
        List<String> result = new ArrayList<>();
        if (value instanceof WeightedSet<?> set) set.keySet().forEach(key -> result.add(key.toString()));
        else if (value instanceof Array<?> array) array.getValues().forEach(element -> result.add(element.toString()));
        return result;
    }

    private static long weight(Document document, String field, String key) {
        if ( ! (document.getFieldValue(field) instanceof WeightedSet<?> set)) return 0;
        long sum = 0;
        for (Object k : set.keySet()) if (k.toString().equalsIgnoreCase(key)) sum += set.get(k);
        return sum;
    }

    private List<String> expected(Predicate<Document> accepts) {
        return documents.entrySet().stream().filter(e -> accepts.test(e.getValue())).map(Map.Entry::getKey).sorted().toList();
    }

    private static List<String> matches(DocumentIndex index, Item root) {
        Query query = new Query("?ranking=counts");
        query.getModel().getQueryTree().setRoot(root);
        var tree = ProtobufQueryTree.translate(DwellPackage.request(query, 10).getQueryTree());
        var result = QueryMatcher.match(index, tree);
        TreeSet<String> ids = new TreeSet<>();
        for (int lid = result.hits().nextSetBit(0); lid >= 0; lid = result.hits().nextSetBit(lid + 1))
            ids.add(index.document(lid).getId().getScheme().getNamespaceSpecific());
        return List.copyOf(ids);
    }

}
