package ai.dwell.runtime.rank;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.WeightedSet;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.CompositeItem;
import com.yahoo.prelude.query.DocumentFrequency;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.PhraseItem;
import com.yahoo.prelude.query.RankItem;
import com.yahoo.prelude.query.TaggableItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nativeRank and its three parts, as a content node computes them, against a plain computation written here from the
 * formulas of Vespa's nativeRank reference and searchlib (tables evaluated from their definitions at each index, every
 * occurrence pair tried for proximity), over random documents (index fields, a long one, an array field with empty
 * elements, a filter field, attributes) and random queries (fieldsets, phrases, ranges, weights, unranked items,
 * AND_NOT, given significances, document frequencies and connectivities), in three profiles; and a few values worked
 * out on paper.
 */
public class NativeRankTest {

    private static final String[] WORDS = { "a", "b", "c", "d", "e", "f" };

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field title type string { indexing: index }
                    field body type string { indexing: index }
                    field notes type array<string> { indexing: index }
                    field hidden type string {
                        indexing: index
                        rank: filter
                    }
                    field tags type weightedset<string> {
                        indexing: attribute
                        attribute: fast-search
                    }
                    field labels type array<string> { indexing: attribute }
                    field year type int { indexing: attribute }
                }
                fieldset default { fields: title, body }
                rank-profile plain {
                    weight title: 200
                    match-features: nativeRank nativeFieldMatch nativeProximity nativeAttributeMatch
                }
                rank-profile tuned {
                    weight body: 50
                    rank-properties {
                        nativeRank.fieldMatchWeight: 70
                        nativeRank.proximityWeight: 40
                        nativeRank.attributeMatchWeight: 30
                        nativeFieldMatch.firstOccurrenceTable.title: "expdecay(100,12.50)"
                        nativeFieldMatch(body).occurrenceCountTable: "loggrowth(1500,4000,19,64)"
                        nativeFieldMatch.firstOccurrenceImportance: 0.7
                        nativeFieldMatch.firstOccurrenceImportance.body: 0.2
                        nativeFieldMatch(notes).averageFieldLength: 12
                        nativeFieldMatch.minFieldLength: 3
                        nativeProximity.slidingWindowSize: 3
                        nativeProximity.proximityImportance: 0.8
                        nativeProximity(body).proximityTable: "expdecay(5000,3)"
                        nativeProximity.reverseProximityTable: "linear(-1,300,50)"
                        nativeProximity.elementGap.notes: 2
                        nativeAttributeMatch.weightTable.tags: "loggrowth(38,50,1)"
                        nativeAttributeMatch.weightTable: "linear(2,1,100)"
                    }
                    first-phase { expression: nativeRank }
                    match-features: nativeRank nativeFieldMatch nativeProximity nativeAttributeMatch nativeRank(title,year) nativeFieldMatch(body)
                }
                rank-profile unnormalized {
                    rank-properties {
                        nativeRank.useTableNormalization: false
                    }
                    match-features: nativeRank nativeFieldMatch nativeProximity nativeAttributeMatch
                }
            }
            """;

    @TempDir static Path tmp;
    private static ContentClusterConfig cluster;
    private static DocumentType type;
    private static final List<ContentNode> nodes = new ArrayList<>();

    @BeforeAll
    static void deploy() throws IOException {
        cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
    }

    @AfterAll
    static void close() { nodes.forEach(ContentNode::close); }

    // ---- documents ----

    /** A document as the test writes it: the terms of its index fields (notes by element) and its attribute values. */
    record Doc(String id, List<String> title, List<String> body, List<List<String>> notes, List<String> hidden,
               Map<String, Integer> tags, List<String> labels, int year) {

        List<List<String>> elements(String field) {
            return switch (field) {
                case "title" -> List.of(title);
                case "body" -> List.of(body);
                case "hidden" -> List.of(hidden);
                case "notes" -> notes;
                default -> throw new IllegalArgumentException(field);
            };
        }

    }

    private static ContentNode node(List<Doc> docs) {
        ContentNode node = new ContentNode(cluster, 0);
        nodes.add(node);
        for (Doc doc : docs) {
            Document document = new Document(type, new DocumentId("id:test:doc::" + doc.id()));
            document.setFieldValue("title", DwellPackage.annotated(doc.title()));
            document.setFieldValue("body", DwellPackage.annotated(doc.body()));
            document.setFieldValue("hidden", DwellPackage.annotated(doc.hidden()));
            Array<StringFieldValue> notes = new Array<>(DataType.getArray(DataType.STRING));
            for (List<String> element : doc.notes()) notes.add(DwellPackage.annotated(element));
            document.setFieldValue("notes", notes);
            WeightedSet<StringFieldValue> tags = new WeightedSet<>(DataType.getWeightedSet(DataType.STRING));
            doc.tags().forEach((tag, weight) -> tags.put(new StringFieldValue(tag), weight));
            document.setFieldValue("tags", tags);
            Array<StringFieldValue> labels = new Array<>(DataType.getArray(DataType.STRING));
            for (String label : doc.labels()) labels.add(new StringFieldValue(label));
            document.setFieldValue("labels", labels);
            document.setFieldValue("year", new IntegerFieldValue(doc.year()));
            node.put(document);
        }
        return node;
    }

    private static List<String> words(String text) { return text.isEmpty() ? List.of() : List.of(text.split(" ")); }

    // ---- values worked out on paper ----

    @Test
    void valuesWorkedOutOnPaper() {
        // One document: title "a b". N = 1 and each word is in it, so frequency = min(max(1, 1·10⁶/1), 10⁶) = 10⁶,
        // idf = ln 10⁶ − ln 10⁶ = 0: significance 0.5 + 0.5·0 = 0.5.
        ContentNode node = node(List.of(new Doc("one", words("a b"), List.of(), List.of(), List.of(), Map.of("a", 10), List.of(), 2001)));
        // 'a' in title (fieldset weight irrelevant: one term in one field normalizes its weight away):
        //   first occurrence: position 0 → expdecay(8000,12.5)[0] = 8000
        //   occurrences: 1·255/max(6, 2) = 42 → loggrowth(1500,4000,19)[42] = 1500·ln(1 + 42/19) + 4000 = 5749.6523275
        //   largest table sum: 0.5·8000 + 0.5·(1500·ln(1 + 255/19) + 4000) = 0.5·8000 + 0.5·8003.0336908 = 8001.5168454
        //   nativeFieldMatch = (0.5·8000 + 0.5·5749.6523275)/8001.5168454 = 0.85919036
        //   nativeRank = 100·0.85919036 / (100 + 100 + 25) = 0.38186238
        Map<String, Double> a = features(node, "plain", new WordItem("a", "title"));
        assertEquals(0.8591903630989033, a.get("nativeFieldMatch"), 1e-12);
        assertEquals(0.0, a.get("nativeProximity"));
        assertEquals(0.3818623835995126, a.get("nativeRank"), 1e-12);
        // 'a' and 'b' in title: b's first occurrence is 1·255/(6 − 1) = 51 → expdecay(8000,12.5)[51] = 135.2597252;
        //   nativeFieldMatch = ((4000 + 2874.8261638) + (67.6298626 + 2874.8261638)) / 2 / 8001.5168454 = 0.61346382
        //   proximity of the pair: a→b 1 apart → expdecay(500,3)[0] = 500; b→a never → expdecay(400,3)[255] = 4.9e-35;
        //   largest table sum 0.5·500 + 0.5·400 = 450: nativeProximity = (0.5·500 + 0.5·4.9e-35)/450 = 0.55555556
        //   (the pair's weight (0.5·100 + 0.5·100)·0.1 and the field's weight cancel);
        //   nativeRank = (100·0.61346382 + 25·0.55555556)/225 = 0.33437898
        AndItem both = new AndItem();
        both.addItem(new WordItem("a", "title"));
        both.addItem(new WordItem("b", "title"));
        Map<String, Double> ab = features(node, "plain", both);
        assertEquals(0.6134638206595224, ab.get("nativeFieldMatch"), 1e-12);
        assertEquals(0.5555555555555556, ab.get("nativeProximity"), 1e-12);
        assertEquals(0.3343789820215161, ab.get("nativeRank"), 1e-12);
        // tags contains 'a', the element of weight 10: linear(1,0)[10] = 10 over the table's largest, 255:
        //   nativeAttributeMatch = 10/255 = 0.03921569; nativeRank = 100·0.03921569/225 = 0.01742919
        Map<String, Double> tag = features(node, "plain", new WordItem("a", "tags"));
        assertEquals(10.0 / 255, tag.get("nativeAttributeMatch"), 1e-15);
        assertEquals(0.0, tag.get("nativeFieldMatch"));
        assertEquals(10.0 / 255 * 100 / 225, tag.get("nativeRank"), 1e-15);
        // a range on year matches with weight 1: 1/255
        assertEquals(1.0 / 255, features(node, "plain", new IntItem("[2000;2002]", "year")).get("nativeAttributeMatch"), 1e-15);
    }

    // ---- random documents and queries against a plain computation ----

    @Test
    void randomDocumentsAndQueriesAsThePlainComputation() {
        Random random = new Random(18);
        List<Doc> docs = new ArrayList<>();
        for (int i = 0; i < 160; i++) docs.add(randomDoc("d" + i, random));
        ContentNode node = node(docs);
        Map<ByteString, Doc> byGid = new HashMap<>();
        for (Doc doc : docs) byGid.put(ByteString.copyFrom(new DocumentId("id:test:doc::" + doc.id()).getGlobalId()), doc);
        int checked = 0;
        Map<String, Integer> nonZero = new HashMap<>();
        for (int q = 0; q < 90; q++) {
            Item root = randomQuery(random, 0);
            for (Settings settings : List.of(Settings.plain(), Settings.tuned(), Settings.unnormalized())) {
                Query query = query(settings.profile, copy(root));
                List<Reference.Term> terms = Reference.terms(query.getModel().getQueryTree().getRoot(), query);
                SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 400));
                assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
                List<String> names = reply.getMatchFeatureNamesList();
                Reference reference = new Reference(settings, docs, terms);
                for (SearchProtocol.Hit hit : reply.getHitsList()) {
                    Doc doc = byGid.get(hit.getGlobalId());
                    String where = settings.profile + " " + root + " on " + doc;
                    Map<String, Double> expected = new LinkedHashMap<>();
                    expected.put("nativeFieldMatch", reference.fieldMatch(doc, settings.indexFields));
                    expected.put("nativeProximity", reference.proximity(doc, settings.indexFields));
                    expected.put("nativeAttributeMatch", reference.attributeMatch(doc, Reference.ATTRIBUTES));
                    expected.put("nativeRank", reference.nativeRank(expected.get("nativeFieldMatch"), expected.get("nativeProximity"),
                                                                    expected.get("nativeAttributeMatch")));
                    if (settings.profile.equals("tuned")) {
                        expected.put("nativeFieldMatch(body)", reference.fieldMatch(doc, List.of("body")));
                        expected.put("nativeRank(title,year)", reference.nativeRank(reference.fieldMatch(doc, List.of("title")),
                                                                                    reference.proximity(doc, List.of("title")),
                                                                                    reference.attributeMatch(doc, List.of("year"))));
                        assertClose(expected.get("nativeRank"), hit.getRelevance(), "relevance, " + where);
                    }
                    for (var feature : expected.entrySet()) {
                        assertClose(feature.getValue(), hit.getMatchFeatures(names.indexOf(feature.getKey())).getNumber(), feature.getKey() + ", " + where);
                        if (feature.getValue() > 1e-9) nonZero.merge(feature.getKey(), 1, Integer::sum);
                    }
                    checked++;
                }
            }
        }
        assertTrue(checked > 5000, "hits checked: " + checked);
        for (String feature : List.of("nativeFieldMatch", "nativeProximity", "nativeAttributeMatch", "nativeRank(title,year)", "nativeFieldMatch(body)"))
            assertTrue(nonZero.getOrDefault(feature, 0) > 300, feature + " was above 0 in " + nonZero.get(feature) + " of " + checked + " hits");
        System.err.println("NativeRankTest: " + checked + " hits checked; above 0: " + nonZero);
    }

    private static void assertClose(double expected, double actual, String what) {
        assertEquals(expected, actual, 1e-12 * Math.max(1, Math.abs(expected)), what);
    }

    private static Doc randomDoc(String id, Random random) {
        List<String> body = new ArrayList<>();
        int length = random.nextInt(4) == 0 ? 200 + random.nextInt(300) : random.nextInt(12); // some far past the tables' ends
        for (int i = 0; i < length; i++) body.add(random.nextInt(length > 100 ? 40 : 3) == 0 ? word(random) : "z");
        List<List<String>> notes = new ArrayList<>();
        for (int e = random.nextInt(4); e > 0; e--) notes.add(randomWords(random, random.nextInt(5))); // empty elements too
        Map<String, Integer> tags = new LinkedHashMap<>();
        for (int t = random.nextInt(3); t > 0; t--) tags.put(word(random), random.nextInt(400) - 60); // past the table, and negative
        return new Doc(id, randomWords(random, 1 + random.nextInt(6)), body, notes, randomWords(random, random.nextInt(4)), tags,
                       randomWords(random, random.nextInt(3)), 1990 + random.nextInt(20));
    }

    private static List<String> randomWords(Random random, int count) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < count; i++) words.add(word(random));
        return words;
    }

    private static String word(Random random) { return WORDS[random.nextInt(WORDS.length)]; }

    private static final String[] INDEXES = { "default", "default", "title", "body", "notes", "hidden", "tags", "labels" };

    /** A query tree: ORs, ANDs, RANKs and AND_NOTs over words, phrases and ranges, with weights, significances and the like. */
    private static Item randomQuery(Random random, int depth) {
        int kind = depth == 0 ? random.nextInt(4) : depth >= 2 ? 4 + random.nextInt(6) : random.nextInt(10);
        if (kind < 4) {
            int children = 2 + random.nextInt(3);
            if (kind == 2) { // AND_NOT of an OR: the others are excluded, and not ranked
                NotItem not = new NotItem();
                OrItem positive = new OrItem();
                for (int i = 0; i < children; i++) positive.addItem(randomQuery(random, depth + 1));
                not.addPositiveItem(positive);
                not.addNegativeItem(randomQuery(random, depth + 1));
                return not;
            }
            CompositeItem composite = switch (kind) {
                case 0 -> new OrItem();
                case 1 -> new RankItem();
                default -> random.nextBoolean() ? new AndItem() : new OrItem();
            };
            for (int i = 0; i < children; i++) composite.addItem(randomQuery(random, depth + 1));
            return composite;
        }
        Item item;
        if (kind < 6) {
            PhraseItem phrase = new PhraseItem(new String[] { word(random), word(random) });
            phrase.setIndexName(List.of("default", "title", "body", "notes").get(random.nextInt(4)));
            item = phrase;
        }
        else if (kind == 6) {
            int low = 1990 + random.nextInt(20);
            item = new IntItem("[" + low + ";" + (low + random.nextInt(6)) + "]", "year");
        }
        else {
            item = new WordItem(word(random), INDEXES[random.nextInt(INDEXES.length)]);
        }
        if (random.nextInt(3) == 0) item.setWeight(List.of(0, 1, 50, 150, 300).get(random.nextInt(5)));
        if (random.nextInt(12) == 0) item.setRanked(false);
        if (random.nextInt(10) == 0 && ! (item instanceof IntItem)) item.setPositionData(false); // matched as a filter: no occurrences
        if (random.nextInt(8) == 0) ((TaggableItem) item).setSignificance(random.nextDouble());
        if (random.nextInt(8) == 0) ((TaggableItem) item).setDocumentFrequency(new DocumentFrequency(random.nextInt(500), 500 + random.nextInt(500)));
        return item;
    }

    /** A copy of a query tree (items are changed by a query's preparation), with connectivity between random neighbors. */
    private static Item copy(Item root) {
        Item copy = root.clone();
        List<Item> leaves = new ArrayList<>();
        leaves(copy, leaves);
        Random random = new Random(leaves.size());
        for (int i = 1; i < leaves.size(); i++)
            if (random.nextInt(4) == 0) ((TaggableItem) leaves.get(i)).setConnectivity(leaves.get(i - 1), random.nextDouble());
        return copy;
    }

    private static void leaves(Item item, List<Item> leaves) {
        if (item instanceof TaggableItem) leaves.add(item);
        else if (item instanceof CompositeItem composite) composite.items().forEach(child -> leaves(child, leaves));
    }

    private static Query query(String profile, Item root) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(root);
        query.getModel().prepare(query.getRanking()); // unique ids, and the rank properties of significances, frequencies and connectivity
        return query;
    }

    /** The native features of the one document a query over a node of one document matches, by the names of the match features. */
    private static Map<String, Double> features(ContentNode node, String profile, Item root) {
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(profile, root), 10));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        assertEquals(1, reply.getHitsCount());
        Map<String, Double> features = new HashMap<>();
        for (int i = 0; i < reply.getMatchFeatureNamesCount(); i++)
            features.put(reply.getMatchFeatureNames(i), reply.getHits(0).getMatchFeatures(i).getNumber());
        return features;
    }

    // ---- refused settings ----

    @Test
    void settingsProtonCouldNotUseAndNamesItDoesNotReadAreRefused() {
        DocumentIndex index = new DocumentIndex(cluster.schema("doc"), new DocumentTypeManager(cluster.documentManager()));
        assertRefused(index, Map.of("nativeFieldMatch.firstOccurrenceTable", "cosine(1,2)"), "'nativeFieldMatch.firstOccurrenceTable'", "not a table function");
        assertRefused(index, Map.of("nativeProximity(body).proximityTable", "expdecay(1)"), "'nativeProximity(body).proximityTable'", "takes 2 arguments");
        assertRefused(index, Map.of("nativeAttributeMatch.weightTable.tags", "linear(1,0,0)"), "'nativeAttributeMatch.weightTable.tags'", "the size");
        assertRefused(index, Map.of("nativeFieldMatch.minFieldLength", "1"), "nativeFieldMatch.minFieldLength = 1", "divides by");
        assertRefused(index, Map.of("nativeRank.proximityWeight", "much"), "'nativeRank.proximityWeight'", "not a number");
        assertRefused(index, Map.of("nativeRank.useTableNormalisation", "false"), "'nativeRank.useTableNormalisation'", "no effect");
        assertRefused(index, Map.of("nativeProximity(title).elementGap", "3"), "'nativeProximity(title).elementGap'", "no effect");
        assertRefused(index, Map.of("nativeFieldMatch(title,body).averageFieldLength", "3"), "averageFieldLength", "no effect");
        assertRefused(index, Map.of("nativeProximity.elementGap.notes", "-1"), "element gap of 'notes'", "whole number");
        RankProfile profile = profile(Map.of());
        ExpressionCompiler compiler = new ExpressionCompiler(profile, null, index, List.of(), QueryProperties.none());
        assertTrue(assertThrows(UnsupportedFeatureException.class, () -> compiler.feature("nativeRank(nosuch)")).getMessage().contains("'nosuch' is not a field"));
        assertTrue(assertThrows(UnsupportedFeatureException.class, () -> compiler.feature("nativeAttributeMatch(title)")).getMessage()
                           .contains("'title' is not an attribute of a primitive type"));
        assertTrue(assertThrows(UnsupportedFeatureException.class, () -> compiler.feature("nativeProximity.foo")).getMessage().contains("the one output score"));
        compiler.feature("nativeRank(title,year).score"); // compiles
    }

    @Test
    void aProfileWithAnUnusableTableFailsVerificationNamingIt() throws IOException {
        ContentClusterConfig bad = DwellPackage.oneNodeCluster(tmp.resolve("bad"), SCHEMA.replace("nativeRank.useTableNormalization: false",
                                                                             "nativeProximity.proximityTable.body: \"sigmoid(1,2)\""));
        List<String> errors = RankSetupVerifier.verify(bad);
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("rank profile 'unnormalized'") && errors.get(0).contains("'nativeProximity.proximityTable.body'")
                   && errors.get(0).contains("'sigmoid' is not a table function"), errors.get(0));
    }

    private static void assertRefused(DocumentIndex index, Map<String, String> properties, String... fragments) {
        UnsupportedFeatureException e = assertThrows(UnsupportedFeatureException.class, () -> new NativeRankSetup(profile(properties), index));
        for (String fragment : fragments) assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    private static RankProfile profile(Map<String, String> properties) {
        var fef = new RankProfilesConfig.Rankprofile.Fef.Builder();
        properties.forEach((name, value) -> fef.property(new RankProfilesConfig.Rankprofile.Fef.Property.Builder().name(name).value(value)));
        return new RankProfile(new RankProfilesConfig.Rankprofile(new RankProfilesConfig.Rankprofile.Builder().name("p").fef(fef)));
    }

    // ---- the plain computation ----

    /** A table function evaluated at an index from its definition (the last element past the end). */
    record Table(String function, double w, double t, double s, int size) {

        static Table expdecay(double w, double t) { return new Table("expdecay", w, t, 0, 256); }
        static Table loggrowth(double w, double t, double s, int size) { return new Table("loggrowth", w, t, s, size); }
        static Table linear(double w, double t, int size) { return new Table("linear", w, t, 0, size); }

        double at(long index) {
            double x = Math.min(index, size - 1);
            return switch (function) {
                case "expdecay" -> w * Math.exp(-x / t);
                case "loggrowth" -> w * Math.log(1 + x / s) + t;
                default -> w * x + t;
            };
        }

        double max() {
            double max = -Double.MAX_VALUE;
            for (int x = 0; x < size; x++) max = Math.max(max, at(x));
            return max;
        }

        /** Negative indexes give the negated value at the positive index. */
        double symmetric(long index) { return index < 0 ? -at(-index) : at(index); }

    }

    /** A profile's settings, as the schema above sets them. */
    static final class Settings {

        final String profile;
        double fieldMatchWeight = 100, proximityWeight = 25, attributeMatchWeight = 100;
        boolean normalize = true;
        int minFieldLength = 6, window = 4;
        final Map<String, Integer> fieldWeight = new HashMap<>();
        final Map<String, Table> firstOccurrence = new HashMap<>(), occurrenceCount = new HashMap<>(), forward = new HashMap<>(),
                                 reverse = new HashMap<>(), weights = new HashMap<>();
        final Map<String, Double> firstOccurrenceImportance = new HashMap<>(), proximityImportance = new HashMap<>();
        final Map<String, Integer> averageLength = new HashMap<>(), elementGap = new HashMap<>();
        final List<String> indexFields = List.of("title", "body", "notes", "hidden");

        Settings(String profile) {
            this.profile = profile;
            for (String field : indexFields) {
                fieldWeight.put(field, 100);
                firstOccurrence.put(field, Table.expdecay(8000, 12.5));
                occurrenceCount.put(field, Table.loggrowth(1500, 4000, 19, 256));
                forward.put(field, Table.expdecay(500, 3));
                reverse.put(field, Table.expdecay(400, 3));
                firstOccurrenceImportance.put(field, 0.5);
                proximityImportance.put(field, 0.5);
            }
            for (String field : Reference.ATTRIBUTES) {
                fieldWeight.put(field, 100);
                weights.put(field, Table.linear(1, 0, 256));
            }
        }

        static Settings plain() {
            Settings settings = new Settings("plain");
            settings.fieldWeight.put("title", 200);
            return settings;
        }

        static Settings tuned() {
            Settings settings = new Settings("tuned");
            settings.fieldWeight.put("body", 50);
            settings.fieldMatchWeight = 70;
            settings.proximityWeight = 40;
            settings.attributeMatchWeight = 30;
            settings.firstOccurrence.put("title", Table.expdecay(100, 12.5));
            settings.occurrenceCount.put("body", Table.loggrowth(1500, 4000, 19, 64));
            for (String field : settings.indexFields) settings.firstOccurrenceImportance.put(field, 0.7);
            settings.firstOccurrenceImportance.put("body", 0.2);
            settings.averageLength.put("notes", 12);
            settings.minFieldLength = 3;
            settings.window = 3;
            for (String field : settings.indexFields) {
                settings.proximityImportance.put(field, 0.8);
                settings.reverse.put(field, Table.linear(-1, 300, 50));
            }
            settings.forward.put("body", Table.expdecay(5000, 3));
            settings.elementGap.put("notes", 2);
            settings.weights.put("tags", Table.loggrowth(38, 50, 1, 256));
            settings.weights.put("labels", Table.linear(2, 1, 100));
            settings.weights.put("year", Table.linear(2, 1, 100));
            return settings;
        }

        static Settings unnormalized() {
            Settings settings = new Settings("unnormalized");
            settings.normalize = false;
            settings.proximityWeight = 100;
            return settings;
        }

        double fieldMatchMax(String field) {
            double importance = firstOccurrenceImportance.get(field);
            return orOne(firstOccurrence.get(field).max() * importance + occurrenceCount.get(field).max() * (1 - importance));
        }

        double proximityMax(String field) {
            double importance = proximityImportance.get(field);
            return orOne(forward.get(field).max() * importance + reverse.get(field).max() * (1 - importance));
        }

        double weightMax(String field) { return orOne(weights.get(field).max()); }

        private double orOne(double max) { return ! normalize || max == 0 ? 1 : max; }

        boolean filter(String field) { return field.equals("hidden"); }

    }

    /** The features computed plainly from the formulas, over the test's documents. */
    record Reference(Settings settings, List<Doc> docs, List<Term> terms) {

        static final List<String> ATTRIBUTES = List.of("tags", "labels", "year");

        /** A ranked term of the query: its id, weight, words (two for a phrase) or year range, and its fields. */
        record Term(int id, int weight, List<String> words, int low, int high, List<String> fields, boolean positions, QueryProperties properties) {
            boolean isRange() { return words.isEmpty(); }
        }

        /** An occurrence: element, position in it, the element's length. */
        record Occurrence(int element, int position, int length) {}

        /** The ranked terms of the prepared query, in tree order, without what AND_NOT excludes. */
        static List<Term> terms(Item root, Query query) {
            Map<String, String> strings = new HashMap<>();
            Map<String, List<String>> all = new HashMap<>();
            query.getRanking().getProperties().asMap().forEach((name, values) -> {
                strings.put(name, String.valueOf(values.get(0)));
                all.put(name, values.stream().map(String::valueOf).toList());
            });
            QueryProperties properties = new QueryProperties(strings, all, Map.of());
            List<Term> terms = new ArrayList<>();
            collect(root, terms, properties);
            return terms;
        }

        private static void collect(Item item, List<Term> terms, QueryProperties properties) {
            if (item instanceof NotItem not) {
                collect(not.getPositiveItem(), terms, properties);
                return;
            }
            if (item instanceof CompositeItem composite && ! (item instanceof PhraseItem)) {
                for (Item child : composite.items()) collect(child, terms, properties);
                return;
            }
            if ( ! item.isRanked()) return;
            int id = ((TaggableItem) item).getUniqueID();
            if (item instanceof IntItem range) {
                terms.add(new Term(id, item.getWeight(), List.of(), range.getFromLimit().number().intValue(), range.getToLimit().number().intValue(),
                                   List.of("year"), true, properties));
            }
            else if (item instanceof PhraseItem phrase) {
                List<String> words = new ArrayList<>();
                for (int i = 0; i < phrase.getItemCount(); i++) words.add(((WordItem) phrase.getItem(i)).getWord());
                terms.add(new Term(id, item.getWeight(), words, 0, 0, fields(phrase.getIndexName()), item.usePositionData(), properties));
            }
            else {
                WordItem word = (WordItem) item;
                terms.add(new Term(id, item.getWeight(), List.of(word.getWord()), 0, 0, fields(word.getIndexName()), item.usePositionData(), properties));
            }
        }

        private static List<String> fields(String index) { return index.equals("default") ? List.of("title", "body") : List.of(index); }

        static boolean isAttribute(String field) { return ATTRIBUTES.contains(field); }

        /**
         * Where a term occurs in an index field of a document, or null where it does not: none (an empty list) for a term
         * without position data, which matches without its occurrences.
         */
        static List<Occurrence> occurrences(Term term, String field, Doc doc) {
            List<Occurrence> found = new ArrayList<>();
            List<List<String>> elements = doc.elements(field);
            for (int e = 0; e < elements.size(); e++) {
                List<String> words = elements.get(e);
                for (int p = 0; p + term.words().size() <= words.size(); p++)
                    if (words.subList(p, p + term.words().size()).equals(term.words())) found.add(new Occurrence(e, p, words.size()));
            }
            return found.isEmpty() ? null : term.positions() ? found : List.of();
        }

        /** The weight a term matches an attribute with, or null where it does not match. */
        static Integer attributeWeight(Term term, String field, Doc doc) {
            return switch (field) {
                case "year" -> term.isRange() && term.low() <= doc.year() && doc.year() <= term.high() ? 1 : null;
                case "labels" -> doc.labels().contains(term.words().get(0)) ? 1 : null;
                case "tags" -> doc.tags().containsKey(term.words().get(0)) && ! term.positions() ? Integer.valueOf(1) : doc.tags().get(term.words().get(0));
                default -> throw new IllegalArgumentException(field);
            };
        }

        /** Of the term's fields, how many documents a word is in, summed (a phrase: its rarest word's), at most N. */
        double significance(Term term) {
            List<String> docfreq = term.properties().values("vespa.term." + term.id() + ".docfreq");
            if (docfreq.size() == 2) return significance(Double.parseDouble(docfreq.get(0)), Double.parseDouble(docfreq.get(1)));
            long sum = 0;
            for (String field : term.fields()) {
                if (isAttribute(field)) {
                    sum += field.equals("tags") ? docs.stream().filter(d -> d.tags().containsKey(term.words().get(0))).count() : docs.size();
                    continue;
                }
                long rarest = Long.MAX_VALUE;
                for (String word : term.words())
                    rarest = Math.min(rarest, docs.stream().filter(d -> d.elements(field).stream().anyMatch(e -> e.contains(word))).count());
                sum += rarest;
            }
            double computed = significance(Math.min(sum, docs.size()), docs.size());
            return term.properties().string("vespa.term." + term.id() + ".significance").map(Double::parseDouble).orElse(computed);
        }

        /** 0.5 + 0.5 · idf in a corpus of a million documents, over the idf of a term in one document of them. */
        static double significance(double frequency, double count) {
            if (count == 0) return 0.5;
            double inMillion = Math.min(Math.max(1, frequency * 1e6 / count), 1e6);
            return 0.5 + 0.5 * (Math.log(1e6) - Math.log(inMillion)) / Math.log(1e6);
        }

        double fieldMatch(Doc doc, List<String> fields) {
            double score = 0, divisor = 0;
            for (Term term : terms) {
                if (term.weight() == 0) continue;
                double termWeight = significance(term) * term.weight(), termScore = 0, fieldWeights = 0;
                boolean any = false;
                for (String field : term.fields()) {
                    if (isAttribute(field) || ! fields.contains(field) || settings.filter(field) || settings.fieldWeight.get(field) == 0) continue;
                    any = true;
                    fieldWeights += settings.fieldWeight.get(field);
                    List<Occurrence> occurrences = occurrences(term, field, doc);
                    if (occurrences == null || occurrences.isEmpty()) continue;
                    long length = settings.averageLength.containsKey(field) ? settings.averageLength.get(field)
                                                                            : occurrences.stream().mapToInt(Occurrence::length).max().getAsInt();
                    Table first = settings.firstOccurrence.get(field), count = settings.occurrenceCount.get(field);
                    long lengthForTables = Math.max(settings.minFieldLength, length);
                    double importance = settings.firstOccurrenceImportance.get(field);
                    double firstValue = first.at(occurrences.get(0).position() * (first.size() - 1L) / (lengthForTables - 1));
                    double countValue = count.at(occurrences.size() * (count.size() - 1L) / lengthForTables);
                    termScore += (importance * firstValue + (1 - importance) * countValue) * settings.fieldWeight.get(field) / settings.fieldMatchMax(field);
                }
                if ( ! any) continue;
                score += termWeight * termScore;
                divisor += termWeight * fieldWeights;
            }
            return divisor > 0 ? score / divisor : score;
        }

        double proximity(Doc doc, List<String> fields) {
            double score = 0, fieldWeights = 0;
            for (String field : settings.indexFields) {
                if ( ! fields.contains(field) || settings.filter(field) || settings.fieldWeight.get(field) == 0) continue;
                List<Term> inField = terms.stream().filter(term -> term.fields().contains(field)).toList();
                double fieldScore = 0, pairWeights = 0;
                boolean anyPair = false;
                for (int i = 0; i < inField.size(); i++) {
                    for (int j = i + 1; j < inField.size() && j - i < settings.window; j++) {
                        Term x = inField.get(i), y = inField.get(j);
                        if (x.weight() == 0 && y.weight() == 0) continue;
                        double connectedness = 1;
                        for (int k = i + 1; k <= j; k++) connectedness = Math.min(connectedness, connexity(inField.get(k), inField.get(k - 1)));
                        double pairWeight = (significance(x) * x.weight() + significance(y) * y.weight()) * connectedness / (j - i);
                        double importance = settings.proximityImportance.get(field);
                        long forward = distance(x, y, field, doc), reverse = distance(y, x, field, doc);
                        fieldScore += pairWeight * (importance * settings.forward.get(field).at(Math.max(0, forward - 1))
                                                    + (1 - importance) * settings.reverse.get(field).at(Math.max(0, reverse - 1))) / settings.proximityMax(field);
                        pairWeights += pairWeight;
                        anyPair = true;
                    }
                }
                if ( ! anyPair) continue;
                score += (pairWeights > 0 ? fieldScore / pairWeights : fieldScore) * settings.fieldWeight.get(field);
                fieldWeights += settings.fieldWeight.get(field);
            }
            return fieldWeights > 0 ? score / fieldWeights : score;
        }

        /** The connectivity the query gives a term to the term before it, else 0.1. */
        static double connexity(Term term, Term previous) {
            List<String> given = term.properties().values("vespa.term." + term.id() + ".connexity");
            return given.size() == 2 && Integer.parseInt(given.get(0)) == previous.id() ? Double.parseDouble(given.get(1)) : 0.1;
        }

        /**
         * The least distance from the end of an occurrence of x to a later occurrence of y in the same element, or, with an
         * element gap, in the next element (counting the rest of x's element and the gap); 1000000 when there is none.
         */
        long distance(Term x, Term y, String field, Doc doc) {
            List<Occurrence> from = occurrences(x, field, doc), to = occurrences(y, field, doc);
            long best = 1_000_000;
            if (from == null || to == null) return best;
            Integer gap = settings.elementGap.get(field);
            for (Occurrence a : from) {
                long end = a.position() + x.words().size() - 1;
                for (Occurrence b : to) {
                    if (b.element() == a.element() && b.position() > end) best = Math.min(best, b.position() - end);
                    if (gap != null && b.element() == a.element() + 1) best = Math.min(best, b.position() + a.length() + gap - end);
                }
            }
            return best;
        }

        double attributeMatch(Doc doc, List<String> fields) {
            List<Double> scores = new ArrayList<>();
            double divisor = 0;
            for (Term term : terms) {
                if (term.weight() == 0) continue;
                for (String field : term.fields()) {
                    if ( ! isAttribute(field) || ! fields.contains(field) || settings.fieldWeight.get(field) == 0) continue;
                    double product = (double) settings.fieldWeight.get(field) * term.weight();
                    divisor += product;
                    Integer weight = attributeWeight(term, field, doc);
                    scores.add(weight == null ? 0 : settings.weights.get(field).symmetric(weight) * product / settings.weightMax(field));
                }
            }
            if (scores.isEmpty()) return 0;
            return scores.stream().mapToDouble(Double::doubleValue).sum() / divisor;
        }

        double nativeRank(double fieldMatch, double proximity, double attributeMatch) {
            return (fieldMatch * settings.fieldMatchWeight + proximity * settings.proximityWeight + attributeMatch * settings.attributeMatchWeight)
                   / (settings.fieldMatchWeight + settings.proximityWeight + settings.attributeMatchWeight);
        }

    }

}
