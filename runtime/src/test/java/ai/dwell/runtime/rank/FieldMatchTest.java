package ai.dwell.runtime.rank;

import ai.dwell.runtime.engine.ContentNode;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.prelude.query.OrItem;
import com.yahoo.prelude.query.PhraseItem;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import com.yahoo.searchlib.ranking.features.fieldmatch.Field;
import com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetrics;
import com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetricsComputer;
import com.yahoo.searchlib.ranking.features.fieldmatch.QueryTerm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fieldMatch(title) and its outputs, queryTermCount, term(n) and matches(field) as a content node computes them, over
 * random documents and queries, against Vespa's own Java fieldMatch (searchlib's FieldMatchMetricsComputer run on the
 * title's words and the query's words, with the query's weights, significances and connectedness), and, for the
 * outputs where proton's C++ code differs from the Java one (the occurrence counts over matched terms only, the simple
 * metrics when nothing in the field matched), against proton's formulas written out here.
 */
public class FieldMatchTest {

    private static final String[] WORDS = { "a", "b", "c", "d", "e", "f", "g" };

    private static final List<String> OUTPUTS = List.of("proximity", "completeness", "queryCompleteness", "fieldCompleteness",
                                                        "orderness", "relatedness", "earliness", "longestSequenceRatio",
                                                        "segmentProximity", "unweightedProximity", "absoluteProximity",
                                                        "weight", "significance", "importance", "segments", "matches",
                                                        "outOfOrder", "gaps", "gapLength", "longestSequence", "head", "tail",
                                                        "segmentDistance", "occurrence", "significantOccurrence", "weightedOccurrence",
                                                        "absoluteOccurrence", "weightedAbsoluteOccurrence", "degradedMatches");

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field title type string { indexing: index }
                    field body type string { indexing: index }
                }
                rank-profile fm {
                    function max_significance() {
                        expression: foreach(terms, N, term(N).significance, ">0.5", max)
                    }
                    function mean_significance() {
                        expression: foreach(terms, N, term(N).significance, ">0.5", average)
                    }
                    function weights() {
                        expression: foreach(terms, N, term(N).weight, "true", sum)
                    }
                    function title_matches() {
                        expression: foreach(terms, T, matches(title,T), "<2", count) + foreach(terms, T, matches(title,T), "true", product)
                    }
                    first-phase { expression: fieldMatch(title) }
                    match-features {
                        fieldMatch(title)
            %s
                        queryTermCount
                        term(0).significance term(1).significance term(1).weight term(1).connectedness term(9).significance
                        matches(title) matches(body) matches(title,1)
                        max_significance mean_significance weights title_matches
                        textSimilarity(title) textSimilarity(title).proximity textSimilarity(title).order
                        textSimilarity(title).queryCoverage textSimilarity(title).fieldCoverage
                    }
                }
                rank-profile tuned inherits fm {
                    rank-properties {
                        fieldMatch(title).maxAlternativeSegmentations: 2
                        fieldMatch(title).earlinessImportance: 0.3
                        fieldMatch(title).fieldCompletenessImportance: 0.2
                        fieldMatch(title).maxOccurrences: 2
                    }
                }
            }
            """.formatted(String.join("\n", OUTPUTS.stream().map(o -> "            fieldMatch(title)." + o).toList()));

    @TempDir static Path tmp;
    private static ContentClusterConfig cluster;
    private static DocumentType type;
    private static ContentNode node;
    private static final List<Doc> docs = new ArrayList<>();

    record Doc(String id, List<String> title, List<String> body) {}

    @BeforeAll
    static void deploy() throws IOException {
        cluster = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA);
        type = new DocumentTypeManager(cluster.documentManager()).getDocumentType("doc");
        node = new ContentNode(cluster, 0);
        Random random = new Random(20);
        for (int i = 0; i < 120; i++) {
            int length = random.nextInt(8) == 0 ? 20 + random.nextInt(60) : 1 + random.nextInt(9);
            Doc doc = new Doc("d" + i, words(random, length), words(random, 1 + random.nextInt(4)));
            docs.add(doc);
            Document document = new Document(type, new DocumentId("id:test:doc::" + doc.id()));
            document.setFieldValue("title", DwellPackage.annotated(doc.title()));
            document.setFieldValue("body", DwellPackage.annotated(doc.body()));
            node.put(document);
        }
    }

    @AfterAll
    static void close() { if (node != null) node.close(); }

    private static List<String> words(Random random, int count) {
        List<String> words = new ArrayList<>();
        for (int i = 0; i < count; i++) words.add(random.nextInt(3) == 0 ? "z" : WORDS[random.nextInt(WORDS.length)]);
        return words;
    }

    @Test
    void whatTheEngineCannotComputeExactlyIsRefusedByName(@TempDir Path dir) throws IOException {
        String schema = """
                schema doc {
                    document doc {
                        field title type string { indexing: index }
                        field notes type array<string> { indexing: index }
                    }
                    rank-profile limit_without_table {
                        rank-properties { fieldMatch(title).proximityLimit: 3 }
                        first-phase { expression: fieldMatch(title) }
                    }
                    rank-profile table {
                        rank-properties { fieldMatch(title).proximityTable: 0.5 }
                        first-phase { expression: fieldMatch(title) }
                    }
                    rank-profile over_fields {
                        first-phase { expression: foreach(fields, F, bm25(F), true, sum) }
                    }
                    rank-profile array_field {
                        first-phase { expression: textSimilarity(notes) + fieldMatch(notes) }
                    }
                    rank-profile no_such_output {
                        first-phase { expression: fieldMatch(title).closeness }
                    }
                }
                """;
        List<String> errors = RankSetupVerifier.verify(DwellPackage.oneNodeCluster(dir.resolve("app"), schema));
        for (String[] expected : new String[][] { { "limit_without_table", "proximityLimit" }, { "table", "fieldMatch(title).proximityTable" },
                                                   { "over_fields", "foreach over fields" }, { "array_field", "notes" },
                                                   { "no_such_output", "no output 'closeness'" } })
            assertTrue(errors.stream().anyMatch(e -> e.contains("'" + expected[0] + "'") && e.contains(expected[1])),
                       expected[0] + " refused naming " + expected[1] + " in " + errors);
    }

    /**
     * A filter field (rank: filter) is searched with bit vectors in proton: a term's match data there hold the document
     * and no occurrences. So fieldMatch of it gives the simple metrics with every match degraded, bm25 0 and
     * fieldTermMatch one occurrence at no position, while matches sees the match; the same words in a field that is no
     * filter rank.
     */
    @Test
    void aFilterFieldsMatchesHaveNoOccurrences(@TempDir Path dir) throws IOException {
        String schema = """
                schema doc {
                    document doc {
                        field title type string {
                            indexing: index
                            index: enable-bm25
                        }
                        field flag type string {
                            indexing: index
                            index: enable-bm25
                            rank: filter
                        }
                    }
                    rank-profile filters {
                        first-phase { expression: fieldMatch(title) }
                        match-features {
                            fieldMatch(flag) fieldMatch(flag).matches fieldMatch(flag).degradedMatches fieldMatch(flag).queryCompleteness
                            fieldMatch(flag).completeness fieldMatch(flag).weight fieldMatch(title).matches fieldMatch(title).degradedMatches
                            bm25(flag) bm25(title) fieldTermMatch(flag,1).occurrences fieldTermMatch(flag,1).firstPosition
                            fieldTermMatch(title,0).occurrences fieldLength(flag) matches(flag) matches(title)
                        }
                    }
                }
                """;
        ContentClusterConfig filters = DwellPackage.oneNodeCluster(dir.resolve("app"), schema);
        DocumentType docType = new DocumentTypeManager(filters.documentManager()).getDocumentType("doc");
        try (ContentNode filtered = new ContentNode(filters, 0)) {
            for (String id : List.of("x", "y")) {
                Document document = new Document(docType, new DocumentId("id:test:doc::" + id));
                List<String> words = id.equals("x") ? List.of("a", "b", "a") : List.of("c");
                document.setFieldValue("title", DwellPackage.annotated(words));
                document.setFieldValue("flag", DwellPackage.annotated(words));
                filtered.put(document);
            }
            OrItem root = new OrItem();
            root.addItem(new WordItem("a", "title"));
            root.addItem(new WordItem("a", "flag"));
            Query query = new Query("?ranking=filters");
            query.getModel().getQueryTree().setRoot(root);
            query.getModel().prepare(query.getRanking());
            SearchProtocol.SearchReply reply = filtered.search(DwellPackage.request(query, 10));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            assertEquals(1, reply.getHitsCount());
            List<String> names = reply.getMatchFeatureNamesList();
            Map<String, Double> features = new HashMap<>();
            for (int i = 0; i < names.size(); i++) features.put(names.get(i), reply.getHits(0).getMatchFeatures(i).getNumber());
            Map<String, Double> expected = Map.ofEntries(
                    Map.entry("fieldMatch(flag)", 0.0), Map.entry("fieldMatch(flag).matches", 1.0),
                    Map.entry("fieldMatch(flag).degradedMatches", 1.0), Map.entry("fieldMatch(flag).queryCompleteness", 1.0),
                    Map.entry("fieldMatch(flag).completeness", 1.0 * (1 - 0.05)), // the simple metrics: query completeness times 1 - fieldCompletenessImportance
                    Map.entry("fieldMatch(flag).weight", 0.5), // 100 of the query's 200
                    Map.entry("fieldMatch(title).matches", 1.0), Map.entry("fieldMatch(title).degradedMatches", 0.0),
                    // fieldTermMatch counts a match without positions as one occurrence at no position, as proton's executor
                    Map.entry("bm25(flag)", 0.0), Map.entry("fieldTermMatch(flag,1).occurrences", 1.0),
                    Map.entry("fieldTermMatch(flag,1).firstPosition", 1_000_000.0), Map.entry("fieldTermMatch(title,0).occurrences", 2.0),
                    Map.entry("fieldLength(flag)", 1_000_000.0), Map.entry("matches(flag)", 1.0), Map.entry("matches(title)", 1.0));
            for (var entry : expected.entrySet()) assertEquals(entry.getValue(), features.get(entry.getKey()), 1e-12, entry.getKey());
            assertTrue(features.get("bm25(title)") > 0, "the field that is no filter ranks: " + features);
        }
    }

    @Test
    void aPhraseIsRefusedByFieldMatchAtQueryTime() {
        PhraseItem phrase = new PhraseItem();
        phrase.setIndexName("title");
        phrase.addItem(new WordItem("a", "title"));
        phrase.addItem(new WordItem("b", "title"));
        Query query = new Query("?ranking=fm");
        query.getModel().getQueryTree().setRoot(phrase);
        query.getModel().prepare(query.getRanking());
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 10));
        assertTrue(reply.getErrorsCount() > 0 && reply.getErrorsList().toString().contains("phrase"), reply.getErrorsList().toString());
    }

    /** A query term as the test makes it. */
    record Term(String word, String field, int weight, double significance, double connectedness) {}

    @Test
    void randomQueriesAsVespasJavaFieldMatchAndProtonsFormulas() {
        Random random = new Random(7);
        Map<ByteString, Doc> byGid = new HashMap<>();
        for (Doc doc : docs) byGid.put(ByteString.copyFrom(new DocumentId("id:test:doc::" + doc.id()).getGlobalId()), doc);
        int checked = 0, ran = 0;
        for (int q = 0; q < 150; q++) {
            String profile = q % 3 == 2 ? "tuned" : "fm";
            List<Term> terms = new ArrayList<>();
            OrItem root = new OrItem();
            WordItem previous = null;
            for (int n = 1 + random.nextInt(5); n > 0; n--) {
                String field = random.nextInt(4) == 0 ? "body" : "title";
                WordItem word = new WordItem(WORDS[random.nextInt(WORDS.length)], field);
                word.setWeight(random.nextInt(3) == 0 ? 50 + random.nextInt(200) : 100);
                double significance = random.nextInt(3) == 0 ? 0.5 : 0.1 + random.nextDouble() * 0.9;
                word.setSignificance(significance);
                double connectedness = 0.1;
                if (previous != null && random.nextBoolean()) {
                    connectedness = random.nextDouble();
                    word.setConnectivity(previous, connectedness);
                }
                terms.add(new Term(word.getWord(), field, word.getWeight(), significance, connectedness));
                root.addItem(word);
                previous = word;
            }
            Query query = new Query("?ranking=" + profile);
            query.getModel().getQueryTree().setRoot(root);
            query.getModel().prepare(query.getRanking());
            SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 400));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            List<String> names = reply.getMatchFeatureNamesList();
            for (SearchProtocol.Hit hit : reply.getHitsList()) {
                Doc doc = byGid.get(hit.getGlobalId());
                Map<String, Double> actual = new LinkedHashMap<>();
                for (int i = 0; i < names.size(); i++) actual.put(names.get(i), hit.getMatchFeatures(i).getNumber());
                Map<String, Double> expected = expected(doc, terms, profile.equals("tuned"));
                if (expected.get("fieldMatch(title).matches") > 0) ran++;
                for (var feature : expected.entrySet())
                    assertEquals(feature.getValue(), actual.get(feature.getKey()), 2e-6 * Math.max(1, Math.abs(feature.getValue())),
                                 feature.getKey() + " of " + doc + " for " + terms + " in " + profile);
                assertEquals(expected.get("fieldMatch(title)"), hit.getRelevance(), 2e-6, "relevance");
                checked++;
            }
        }
        assertTrue(checked > 2000, "hits checked: " + checked);
        assertTrue(ran > 1000, "hits with title matches: " + ran);
    }

    /**
     * textSimilarity(title) as searchlib's TextSimilarityExecutor describes it: a queue of the terms by their current
     * occurrence (position, then term order); the first is matched, then each front term is matched when it lies after
     * the last match (and leaves the queue), else moves on to its next occurrence.
     */
    private static void textSimilarity(Doc doc, List<Term> inTitle, Map<String, Double> expected) {
        List<int[]> queue = new ArrayList<>(); // {term index, occurrence index}
        List<List<Integer>> positions = new ArrayList<>();
        int totalWeight = 0;
        for (int i = 0; i < inTitle.size(); i++) {
            List<Integer> at = new ArrayList<>();
            for (int p = 0; p < doc.title().size(); p++) if (doc.title().get(p).equals(inTitle.get(i).word())) at.add(p);
            positions.add(at);
            totalWeight += inTitle.get(i).weight();
            if ( ! at.isEmpty()) queue.add(new int[] { i, 0 });
        }
        String f = "textSimilarity(title)";
        if (queue.isEmpty()) {
            for (String output : List.of("", ".proximity", ".order", ".queryCoverage", ".fieldCoverage")) expected.put(f + output, 0.0);
            return;
        }
        java.util.Comparator<int[]> order = java.util.Comparator.<int[]>comparingInt(item -> positions.get(item[0]).get(item[1])).thenComparingInt(item -> item[0]);
        queue.sort(order);
        int[] first = queue.remove(0);
        int length = doc.title().size(), matched = 1, lastPosition = positions.get(first[0]).get(first[1]), lastIndex = first[0], inOrder = 0;
        int weight = inTitle.get(first[0]).weight();
        double proximitySum = 0;
        while ( ! queue.isEmpty()) {
            queue.sort(order);
            int[] item = queue.get(0);
            int position = positions.get(item[0]).get(item[1]);
            if (position > lastPosition) {
                int distance = position - lastPosition;
                proximitySum += distance > 8 ? 0 : 1 - Math.pow((distance - 1) / 8.0, 2);
                if (item[0] > lastIndex) inOrder++;
                lastPosition = position;
                lastIndex = item[0];
                matched++;
                weight += inTitle.get(item[0]).weight();
                queue.remove(0);
            }
            else if (++item[1] == positions.get(item[0]).size()) queue.remove(0);
        }
        double matches = Math.min(length, matched);
        double proximity = matches < 2 ? (length > 8 ? 0 : 1 - Math.pow((length - 1) / 8.0, 2)) : proximitySum / (matches - 1);
        double orderness = matches < 2 ? matches : inOrder / (matches - 1);
        double queryCoverage = weight / (double) totalWeight, fieldCoverage = matches / length;
        expected.put(f, 0.35 * proximity + 0.15 * orderness + 0.30 * queryCoverage + 0.20 * fieldCoverage);
        expected.put(f + ".proximity", proximity);
        expected.put(f + ".order", orderness);
        expected.put(f + ".queryCoverage", queryCoverage);
        expected.put(f + ".fieldCoverage", fieldCoverage);
    }

    /** The features of a document for a query: fieldMatch from Vespa's Java computer and proton's formulas. */
    private static Map<String, Double> expected(Doc doc, List<Term> terms, boolean tuned) {
        Map<String, Double> expected = new LinkedHashMap<>();
        expected.put("queryTermCount", (double) terms.size());
        expected.put("term(0).significance", terms.get(0).significance());
        expected.put("term(1).significance", terms.size() > 1 ? terms.get(1).significance() : 0);
        expected.put("term(1).weight", terms.size() > 1 ? terms.get(1).weight() : 0.0);
        expected.put("term(1).connectedness", terms.size() > 1 ? terms.get(1).connectedness() : 0);
        expected.put("term(9).significance", 0.0);
        expected.put("matches(title)", terms.stream().anyMatch(t -> t.field().equals("title") && doc.title().contains(t.word())) ? 1.0 : 0.0);
        expected.put("matches(body)", terms.stream().anyMatch(t -> t.field().equals("body") && doc.body().contains(t.word())) ? 1.0 : 0.0);
        expected.put("matches(title,1)", terms.size() > 1 && terms.get(1).field().equals("title") && doc.title().contains(terms.get(1).word()) ? 1.0 : 0.0);

        double max = -Double.MAX_VALUE, sum = 0;
        int above = 0;
        for (Term term : terms) {
            if (term.significance() <= 0.5) continue;
            max = Math.max(max, term.significance());
            sum += term.significance();
            above++;
        }
        expected.put("max_significance", max);
        expected.put("mean_significance", above == 0 ? 0 : sum / above);
        expected.put("weights", (double) terms.stream().mapToInt(Term::weight).sum());
        boolean allInTitle = terms.size() == 16 && terms.stream().allMatch(t -> t.field().equals("title") && doc.title().contains(t.word()));
        expected.put("title_matches", 16.0 + (allInTitle ? 1 : 0));

        List<Term> inTitle = terms.stream().filter(t -> t.field().equals("title")).toList();
        textSimilarity(doc, inTitle, expected);
        int totalWeight = terms.stream().mapToInt(Term::weight).sum();
        float totalSignificance = 0;
        for (Term term : terms) totalSignificance += (float) term.significance();
        int matched = 0, matchedWeight = 0;
        for (Term term : inTitle) {
            if ( ! doc.title().contains(term.word())) continue;
            matched++;
            matchedWeight += term.weight();
        }
        String f = "fieldMatch(title)";
        double fieldCompletenessImportance = tuned ? 0.2 : 0.05;
        if (matched == 0) { // proton's simple metrics; the rest as without matches
            for (String output : OUTPUTS) expected.put(f + "." + output, 0.0);
            expected.put(f, 0.0);
            return expected;
        }
        var parameters = new com.yahoo.searchlib.ranking.features.fieldmatch.FieldMatchMetricsParameters();
        if (tuned) {
            parameters.setMaxAlternativeSegmentations(2);
            parameters.setEarlinessImportance(0.3f);
            parameters.setFieldCompletenessImportance(0.2f);
            parameters.setMaxOccurrences(2);
        }
        parameters.freeze();
        QueryTerm[] queryTerms = new QueryTerm[inTitle.size()];
        for (int i = 0; i < queryTerms.length; i++) {
            Term term = inTitle.get(i);
            queryTerms[i] = new QueryTerm(term.word(), (float) term.connectedness());
            queryTerms[i].setWeight(term.weight());
            queryTerms[i].setSignificance((float) term.significance());
        }
        var query = new com.yahoo.searchlib.ranking.features.fieldmatch.Query(queryTerms);
        query.setTotalTermWeight(totalWeight);
        query.setTotalSignificance(totalSignificance);
        FieldMatchMetrics m = new FieldMatchMetricsComputer(parameters).compute(query, new Field(String.join(" ", doc.title())), false);
        expected.put(f, (double) m.getMatch());
        for (String output : OUTPUTS) {
            if (output.contains("ccurrence")) continue;
            if (output.equals("degradedMatches")) expected.put(f + "." + output, 0.0);
            else expected.put(f + "." + output, (double) m.get(output));
        }
        // proton counts occurrences of the distinct query terms that matched (Java: of every distinct query term)
        int maxOccurrences = tuned ? 2 : 100;
        Set<String> unique = new LinkedHashSet<>();
        for (Term term : inTitle) if (doc.title().contains(term.word())) unique.add(term.word());
        int length = doc.title().size();
        double divider = Math.min(length, maxOccurrences * unique.size()), maxOccurrence = Math.min(length, maxOccurrences);
        double occurrence = 0, absolute = 0, weightedAbsolute = 0, totalWeighted = 0, totalSignificant = 0, weightedSum = 0, significantSum = 0;
        int uniqueWeight = 0;
        for (String word : unique) {
            Term term = inTitle.stream().filter(t -> t.word().equals(word)).findFirst().orElseThrow();
            int occurrences = (int) Math.min(doc.title().stream().filter(word::equals).count(), maxOccurrences);
            occurrence += occurrences / divider;
            absolute += occurrences / (double) (maxOccurrences * unique.size());
            weightedAbsolute += (double) occurrences * term.weight() / maxOccurrences;
            uniqueWeight += term.weight();
            totalWeighted += maxOccurrence * term.weight() / divider;
            weightedSum += occurrences * term.weight() / divider;
            totalSignificant += maxOccurrence * term.significance() / divider;
            significantSum += occurrences * term.significance() / divider;
        }
        expected.put(f + ".occurrence", occurrence);
        expected.put(f + ".absoluteOccurrence", absolute);
        expected.put(f + ".weightedAbsoluteOccurrence", weightedAbsolute / uniqueWeight);
        expected.put(f + ".weightedOccurrence", weightedSum / totalWeighted);
        expected.put(f + ".significantOccurrence", significantSum / totalSignificant);
        if (length > maxOccurrences) { // the Java score's occurrence then divides by all distinct query terms: use proton's
            double scaledRelatedness = 1 - 0.9 + 0.9 * m.getRelatedness();
            double completeness = m.getQueryCompleteness() * (1 - fieldCompletenessImportance) + fieldCompletenessImportance * m.getFieldCompleteness();
            double earliness = tuned ? 0.3 : 0.05;
            expected.put(f, (0.9 * scaledRelatedness * m.getProximity() * completeness * completeness + earliness * m.getEarliness()
                             + 0.05 * m.getSegmentProximity() + 0.05 * occurrence) / (0.9 + earliness + 0.05 + 0.05));
        }
        return expected;
    }

}
