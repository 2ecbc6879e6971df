package ai.dwell.runtime.match;

import ai.dwell.runtime.engine.query.ProtobufQueryTree;
import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.DwellPackage;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.FuzzyItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.prelude.query.PrefixItem;
import com.yahoo.prelude.query.RegExpItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prefix, regexp and fuzzy matching on string attributes (article_id has fast-search, author_id not), as the container
 * sends them, against a reference computed here: startsWith, contains/endsWith for the regexps, and a memoized recursive
 * Levenshtein distance over code points, all on lowercased values (the attributes are uncased, Vespa's default).
 */
public class StringMatchingTest {

    private static final String LETTERS = "abcAB\u00e9\u00c9x";

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private DocumentIndex index;
    private DocumentType type;
    private final Map<String, String[]> values = new HashMap<>(); // comment id -> article, author

    @BeforeEach
    void setUp() {
        if (cluster == null) {
            cluster = DwellPackage.cluster();
            indexing = DwellPackage.indexing(cluster);
        }
        type = indexing.documentTypes().getDocumentType("comment");
        index = new DocumentIndex(cluster.schema("comment"), indexing.documentTypes());
        Random random = new Random(5);
        for (int i = 0; i < 300; i++) put("c" + i, word(random, 1 + random.nextInt(6)), word(random, random.nextInt(7)));
        for (int i = 0; i < 300; i += 7) index.remove(new DocumentId("id:dwell:comment::c" + i)); // removed values match nothing
        for (int i = 0; i < 300; i += 7) values.remove("c" + i);
    }

    @Test
    void prefixMatchesTheValuesThatBeginWithIt() {
        Random random = new Random(9);
        for (int round = 0; round < 200; round++) {
            String prefix = word(random, 1 + random.nextInt(3));
            for (String field : List.of("article_id", "author_id")) {
                int column = field.equals("article_id") ? 0 : 1;
                List<String> expected = expected(value -> value.startsWith(prefix.toLowerCase(Locale.ROOT)), column);
                assertEquals(expected, matches(new PrefixItem(prefix, field)), "prefix '" + prefix + "' on " + field);
            }
        }
    }

    @Test
    void fuzzyMatchesTheValuesWithinTheEditDistance() {
        Random random = new Random(13);
        for (int round = 0; round < 300; round++) {
            String word = word(random, random.nextInt(6));
            int maxEdits = random.nextInt(3), lock = random.nextInt(3);
            boolean prefixMatch = random.nextBoolean();
            for (String field : List.of("article_id", "author_id")) {
                int column = field.equals("article_id") ? 0 : 1;
                String target = word.toLowerCase(Locale.ROOT);
                List<String> expected = expected(value -> accepts(target, value, maxEdits, lock, prefixMatch), column);
                FuzzyItem item = new FuzzyItem(field, true, word, maxEdits, lock, prefixMatch);
                assertEquals(expected, matches(item), "fuzzy '" + word + "' edits " + maxEdits + " lock " + lock + " prefix " + prefixMatch + " on " + field);
            }
        }
        assertTrue(matches(new FuzzyItem("article_id", true, "zzzzzzzzzz", 2, 0)).isEmpty());
    }

    @Test
    void regexpMatchesTheValuesItFindsSomewhereInIgnoringCase() {
        Random random = new Random(17);
        for (int round = 0; round < 200; round++) {
            String word = word(random, 1 + random.nextInt(3)), w = word.toLowerCase(Locale.ROOT);
            String first = w.substring(0, 1), last = w.substring(w.length() - 1);
            Map<String, java.util.function.Predicate<String>> cases = Map.of(
                    word, value -> value.contains(w),
                    "^" + word, value -> value.startsWith(w),
                    word + "$", value -> value.endsWith(w),
                    "^" + first + "." + last + "$", value -> value.codePointCount(0, value.length()) == 3 && value.startsWith(first) && value.endsWith(last));
            for (var regexp : cases.entrySet()) {
                for (String field : List.of("article_id", "author_id")) {
                    int column = field.equals("article_id") ? 0 : 1;
                    assertEquals(expected(regexp.getValue(), column), matches(new RegExpItem(field, true, regexp.getKey())),
                                 "regexp '" + regexp.getKey() + "' on " + field);
                }
            }
        }
        // the container refuses a pattern java.util.regex cannot read; one that comes anyway matches nothing, as in proton
        for (String field : List.of("article_id", "author_id"))
            assertTrue(QueryMatcher.match(index, new QueryItem.Regexp(field, "(a", 100, true)).hits().isEmpty(), field);
        assertEquals(expected(value -> value.contains("a"), 0).size(),
                     QueryMatcher.match(index, new QueryItem.Regexp("article_id", "A", 100, true)).hits().cardinality());
    }

    @Test
    void onAnIndexedFieldOrANumberTheyAreRefusedByName() {
        UnsupportedQueryException text = assertThrows(UnsupportedQueryException.class, () -> matches(new PrefixItem("qu", "text")));
        assertTrue(text.getMessage().contains("prefix matching on the indexed field 'text'"), text.getMessage());
        UnsupportedQueryException number = assertThrows(UnsupportedQueryException.class, () -> matches(new FuzzyItem("upvotes", true, "3", 1, 0)));
        assertTrue(number.getMessage().contains("'upvotes', which is not a string attribute"), number.getMessage());
        UnsupportedQueryException regexp = assertThrows(UnsupportedQueryException.class, () -> matches(new RegExpItem("text", true, "qu")));
        assertTrue(regexp.getMessage().contains("regexp matching on the indexed field 'text'"), regexp.getMessage());
    }

    /** Vespa's fuzzy match, written out plainly: the locked prefix equal, then the distance of the rest (or of a prefix of the rest). */
    private static boolean accepts(String target, String value, int maxEdits, int lock, boolean prefixMatch) {
        int[] t = target.codePoints().toArray(), v = value.codePoints().toArray();
        int locked = Math.min(lock, t.length);
        if (v.length < locked) return false;
        for (int i = 0; i < locked; i++) if (t[i] != v[i]) return false;
        int[] tRest = java.util.Arrays.copyOfRange(t, locked, t.length), vRest = java.util.Arrays.copyOfRange(v, locked, v.length);
        if ( ! prefixMatch) return distance(tRest, vRest, tRest.length, vRest.length, new HashMap<>()) <= maxEdits;
        for (int j = 0; j <= vRest.length; j++)
            if (distance(tRest, vRest, tRest.length, j, new HashMap<>()) <= maxEdits) return true;
        return false;
    }

    private static int distance(int[] a, int[] b, int i, int j, Map<Long, Integer> memo) {
        if (i == 0) return j;
        if (j == 0) return i;
        long key = ((long) i << 32) | j;
        Integer known = memo.get(key);
        if (known != null) return known;
        int d = Math.min(distance(a, b, i - 1, j - 1, memo) + (a[i - 1] == b[j - 1] ? 0 : 1),
                         Math.min(distance(a, b, i - 1, j, memo), distance(a, b, i, j - 1, memo)) + 1);
        memo.put(key, d);
        return d;
    }

    private List<String> expected(java.util.function.Predicate<String> accepts, int column) {
        List<String> ids = new ArrayList<>();
        for (Map.Entry<String, String[]> entry : values.entrySet()) {
            String value = entry.getValue()[column];
            if (value != null && accepts.test(value.toLowerCase(Locale.ROOT))) ids.add(entry.getKey());
        }
        return ids.stream().sorted().toList();
    }

    private List<String> matches(Item root) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(root);
        QueryItem tree = ProtobufQueryTree.translate(DwellPackage.request(query, 10).getQueryTree());
        MatchResult result = QueryMatcher.match(index, tree);
        List<String> ids = new ArrayList<>();
        for (int lid = result.hits().nextSetBit(0); lid >= 0; lid = result.hits().nextSetBit(lid + 1))
            ids.add(index.document(lid).getId().getScheme().getNamespaceSpecific());
        return ids.stream().sorted().toList();
    }

    private void put(String id, String article, String author) {
        Document comment = new Document(type, new DocumentId("id:dwell:comment::" + id));
        comment.setFieldValue("comment_id", new StringFieldValue(id));
        comment.setFieldValue("article_id", new StringFieldValue(article));
        if ( ! author.isEmpty()) comment.setFieldValue("author_id", new StringFieldValue(author));
        index.put(indexing.process(comment));
        values.put(id, new String[] { article, author.isEmpty() ? null : author });
    }

    private static String word(Random random, int length) {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < length; i++) word.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
        return word.toString();
    }

}
