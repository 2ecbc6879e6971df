package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.index.PredicateAssignment.Feature;
import ai.dwell.runtime.index.PredicateAssignment.RangeFeature;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.vespa.configdefinition.IlscriptsConfig;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.PredicateFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.FieldUpdate;
import com.yahoo.language.simple.SimpleLinguistics;
import com.yahoo.prelude.query.AndItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.prelude.query.PredicateQueryItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Predicate fields through a content node: documents put through the schema's indexing script (optimize_predicate with
 * the field's arity and bounds), predicate items as container-search serializes them, alone and under AND and AND_NOT
 * with other items, subqueries(target) with its lsb and msb outputs as match features, rewrites by partial update, removes,
 * and a flushed state loaded by a new node. Expectations worked out by hand from the documents' predicates.
 */
public class PredicateSearchTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field kind type string {
                        indexing: attribute | summary
                    }
                    field target type predicate {
                        indexing: attribute | summary
                        index {
                            arity: 4
                            lower-bound: 0
                            upper-bound: 200
                        }
                    }
                }
                rank-profile default {
                    first-phase {
                        expression: 1
                    }
                    match-features: subqueries(target) subqueries(target).lsb subqueries(target).msb
                }
            }
            """;

    /** The documents: their kind and predicate (null: none). */
    private static final Map<String, String[]> DOCUMENTS = new TreeMap<>(Map.of(
            "a", new String[] { "ad", "gender in [male] and age in [30..40]" },
            "b", new String[] { "ad", "country not in [no]" },
            "c", new String[] { "user", "true" },
            "d", new String[] { "ad", "false" },
            "e", new String[] { "ad", null },
            "f", new String[] { "user", "hobby in [climbing, sports] or age in [..20]" },
            "g", new String[] { "ad", "age in [50..] and not (hobby in [chess])" }));

    @TempDir static Path tmp;
    @TempDir Path state;
    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private static DocumentType type;

    @BeforeAll
    static void deploy() throws IOException {
        Path app = tmp.resolve("app");
        cluster = DwellPackage.oneNodeCluster(app, SCHEMA);
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        IlscriptsConfig scripts = DwellPackage.model(app).getConfig(IlscriptsConfig.class, "default/docprocchains/chain/indexing/component/com.yahoo.docprocs.indexing.IndexingProcessor");
        indexing = new IndexingScripts(scripts, types, new SimpleLinguistics());
        type = types.getDocumentType("doc");
    }

    @Test
    void matchesAndSubqueriesAsWorkedOutByHand() {
        try (ContentNode node = node()) {
            // gender=male in subqueries 0 and 40, hobby=sports in 1, age 35 in all
            PredicateQueryItem predicate = predicate(List.of(new Feature("gender", "male", 1L << 40 | 0b01), new Feature("hobby", "sports", 0b10L)),
                                                     List.of(new RangeFeature("age", 35L, -1L)));
            // a: gender and age: bits 0 and 40; b: no country=no, all; c: true, all; f: hobby, bit 1; g: 35 < 50; d, e: never
            Map<String, long[]> hits = search(node, predicate);
            assertEquals(List.of("a", "b", "c", "f"), List.copyOf(hits.keySet()));
            assertSubqueries(1L << 40 | 1, hits.get("a"));
            assertSubqueries(-1L, hits.get("b"));
            assertSubqueries(-1L, hits.get("c"));
            assertSubqueries(0b10, hits.get("f"));

            // no features: what holds without any (b, c); age 60 alone adds g; with hobby=chess in subquery 3, g holds for the others only
            assertEquals(List.of("b", "c"), List.copyOf(search(node, predicate(List.of(), List.of())).keySet()));
            assertEquals(List.of("b", "c", "g"), List.copyOf(search(node, predicate(List.of(), List.of(new RangeFeature("age", 60L, -1L)))).keySet()));
            Map<String, long[]> chess = search(node, predicate(List.of(new Feature("hobby", "chess", 0b1000L)), List.of(new RangeFeature("age", 60L, -1L))));
            assertSubqueries(~0b1000L, chess.get("g"));
            assertEquals(List.of("b", "c", "g"), List.copyOf(chess.keySet()));
            // an open lower end: age 20 and below
            assertEquals(List.of("b", "c", "f"), List.copyOf(search(node, predicate(List.of(), List.of(new RangeFeature("age", 20L, -1L)))).keySet()));
            assertEquals(List.of("b", "c"), List.copyOf(search(node, predicate(List.of(), List.of(new RangeFeature("age", 21L, -1L)))).keySet()));
        }
    }

    @Test
    void combinedWithOtherItems() {
        try (ContentNode node = node()) {
            PredicateQueryItem predicate = predicate(List.of(new Feature("gender", "male", -1L)), List.of(new RangeFeature("age", 35L, -1L)));
            AndItem and = new AndItem();
            and.addItem(predicate);
            and.addItem(new WordItem("ad", "kind"));
            assertEquals(List.of("a", "b"), List.copyOf(search(node, and).keySet()));
            NotItem not = new NotItem();
            not.addPositiveItem(predicate(List.of(new Feature("gender", "male", -1L)), List.of(new RangeFeature("age", 35L, -1L))));
            not.addNegativeItem(new WordItem("ad", "kind"));
            assertEquals(List.of("c"), List.copyOf(search(node, not).keySet()));
        }
    }

    @Test
    void rewritesAndRemovesChangeWhatMatches() {
        try (ContentNode node = node()) {
            PredicateQueryItem male35 = predicate(List.of(new Feature("gender", "male", -1L)), List.of(new RangeFeature("age", 35L, -1L)));
            DocumentUpdate update = new DocumentUpdate(type, id("a"));
            update.addFieldUpdate(FieldUpdate.createAssign(type.getField("target"), new PredicateFieldValue("gender in [female]")));
            assertTrue(node.update(indexing.process(update)).isPresent());
            DocumentUpdate clear = new DocumentUpdate(type, id("d"));
            clear.addFieldUpdate(FieldUpdate.createAssign(type.getField("target"), new PredicateFieldValue("age in [35..35]")));
            assertTrue(node.update(indexing.process(clear)).isPresent());
            node.remove(id("b"));
            assertEquals(List.of("c", "d"), List.copyOf(search(node, male35).keySet()));
            DocumentUpdate unset = new DocumentUpdate(type, id("d"));
            unset.addFieldUpdate(FieldUpdate.createClear(type.getField("target")));
            assertTrue(node.update(indexing.process(unset)).isPresent());
            assertEquals(List.of("c"), List.copyOf(search(node, male35).keySet()), "a document whose predicate was cleared matches nothing");
        }
    }

    @Test
    void aNodeLoadedFromAFlushedStateAnswersTheSame() throws IOException {
        PredicateQueryItem query = predicate(List.of(new Feature("gender", "male", 0b11L), new Feature("hobby", "sports", 0b100L)),
                                             List.of(new RangeFeature("age", 35L, 0b101L)));
        Map<String, long[]> before;
        try (ContentNode node = node()) {
            node.keepStateIn(state, Map.of());
            before = search(node, query);
            node.flush();
        }
        try (ContentNode loaded = new ContentNode(cluster, 0)) {
            loaded.keepStateIn(state, Map.of());
            assertEquals(java.util.Set.of("doc"), loaded.loadState());
            Map<String, long[]> after = search(loaded, query);
            assertEquals(before.keySet(), after.keySet());
            before.forEach((id, features) -> assertEquals(java.util.Arrays.toString(features), java.util.Arrays.toString(after.get(id)), id));
            assertEquals(List.of("a", "b", "c", "f"), List.copyOf(after.keySet()));
            assertSubqueries(0b01, after.get("a"));
        }
    }

    @Test
    void predicateOnAFieldThatIsNotAPredicateFailsNamingIt() {
        try (ContentNode node = node()) {
            PredicateQueryItem item = predicate(List.of(new Feature("gender", "male", -1L)), List.of());
            item.setIndexName("kind");
            SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(item), 10));
            assertEquals(1, reply.getErrorsCount());
            assertTrue(reply.getErrors(0).getMessage().contains("predicate on 'kind', which is not a predicate field"), reply.getErrors(0).getMessage());
        }
    }

    private static void assertSubqueries(long expected, long[] features) {
        assertEquals(expected & 0xFFFFFFFFL, features[0], "subqueries(target)");
        assertEquals(expected & 0xFFFFFFFFL, features[1], "subqueries(target).lsb");
        assertEquals(expected >>> 32, features[2], "subqueries(target).msb");
    }

    private static ContentNode node() {
        ContentNode node = new ContentNode(cluster, 0);
        DOCUMENTS.forEach((name, fields) -> {
            Document document = new Document(type, id(name));
            document.setFieldValue("kind", new StringFieldValue(fields[0]));
            if (fields[1] != null) document.setFieldValue("target", new PredicateFieldValue(fields[1]));
            node.put(indexing.process(document));
        });
        return node;
    }

    private static DocumentId id(String name) { return new DocumentId("id:test:doc::" + name); }

    private static PredicateQueryItem predicate(List<Feature> features, List<RangeFeature> ranges) {
        PredicateQueryItem item = new PredicateQueryItem();
        item.setIndexName("target");
        for (Feature feature : features) item.addFeature(feature.key(), feature.value(), feature.subqueries());
        for (RangeFeature range : ranges) item.addRangeFeature(range.key(), range.value(), range.subqueries());
        return item;
    }

    private static Query query(Item root) {
        Query query = new Query("?ranking=default");
        query.getModel().getQueryTree().setRoot(root);
        query.getModel().prepare(query.getRanking());
        return query;
    }

    /** The hits by document name, in name order, with their three match features (subqueries, .lsb, .msb). */
    private static Map<String, long[]> search(ContentNode node, Item root) {
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query(root), 100));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
        Map<ByteString, String> names = new HashMap<>();
        DOCUMENTS.keySet().forEach(name -> names.put(ByteString.copyFrom(id(name).getGlobalId()), name));
        assertEquals(List.of("subqueries(target)", "subqueries(target).lsb", "subqueries(target).msb"), reply.getMatchFeatureNamesList());
        Map<String, long[]> hits = new TreeMap<>();
        for (SearchProtocol.Hit hit : reply.getHitsList()) {
            long[] features = new long[3];
            for (int i = 0; i < 3; i++) features[i] = (long) hit.getMatchFeatures(i).getNumber();
            hits.put(names.get(hit.getGlobalId()), features);
        }
        assertEquals(hits.size(), reply.getTotalHitCount());
        return hits;
    }

}
