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
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.IntItem;
import com.yahoo.prelude.query.Item;
import com.yahoo.search.Query;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * int64 attributes compare exactly, as proton's: values past 2^53, where neighbouring longs share a double, are told
 * apart by terms and by ranges the container sends as integers, with fast-search (created_at) and without (read_ms).
 */
public class Int64ExactnessTest {

    private static final long TWO_53 = 1L << 53;
    private static final long[] VALUES = { TWO_53 - 1, TWO_53, TWO_53 + 1, TWO_53 + 2, TWO_53 + 3, 1234567890123456789L,
                                           1234567890123456788L, 1234567890123456790L, Long.MAX_VALUE, Long.MAX_VALUE - 1,
                                           Long.MIN_VALUE + 1, Long.MIN_VALUE + 2, -TWO_53 - 1, 0, 42 };

    private static ContentClusterConfig cluster;
    private static IndexingScripts indexing;
    private DocumentIndex index;
    private final Map<String, Long> values = new LinkedHashMap<>();

    @BeforeEach
    void setUp() {
        if (cluster == null) {
            cluster = DwellPackage.cluster();
            indexing = DwellPackage.indexing(cluster);
        }
        DocumentType type = indexing.documentTypes().getDocumentType("comment");
        index = new DocumentIndex(cluster.schema("comment"), indexing.documentTypes());
        for (int i = 0; i < VALUES.length; i++) {
            Document comment = new Document(type, new DocumentId("id:dwell:comment::c" + i));
            comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
            comment.setFieldValue("article_id", new StringFieldValue("a"));
            comment.setFieldValue("created_at", new LongFieldValue(VALUES[i]));
            comment.setFieldValue("read_ms", new LongFieldValue(VALUES[i]));
            index.put(indexing.process(comment));
            values.put("c" + i, VALUES[i]);
        }
    }

    @Test
    void termsMatchTheOneValueTheyName() {
        for (String field : List.of("created_at", "read_ms")) {
            for (long value : VALUES) {
                assertMatches(new IntItem(Long.toString(value), field));
                assertMatches(new IntItem(Long.toString(value + 1), field));
                if (Math.abs((double) value) < 0x1p62) // sent as an integer: each value finds its one document, its neighbours none
                    assertEquals(List.of(values.entrySet().stream().filter(e -> e.getValue() == value).findFirst().orElseThrow().getKey()),
                                 matches(new IntItem(Long.toString(value), field)), field + " = " + value);
            }
        }
    }

    @Test
    void integerRangesCompareAsLongs() {
        for (String field : List.of("created_at", "read_ms")) {
            for (long low : VALUES) {
                for (long high : VALUES) {
                    if (low > high) continue;
                    assertMatches(new IntItem("[" + low + ";" + high + "]", field));
                }
                assertMatches(new IntItem(">" + low, field));
                assertMatches(new IntItem("<" + low, field));
                assertMatches(new IntItem("[" + low + ".5;" + low + ".5]", field));
                if (low > Long.MIN_VALUE + 1) assertMatches(new IntItem("[" + low + ";" + (low - 1) + "]", field)); // empty
            }
        }
    }

    /**
     * The documents matched are those proton matches for what the container sends: an integer term or range compares
     * as longs; a container that sends a floating point bound (it does for bounds near the ends of the long range) has
     * it stand for the integers it admits, clamped to the long range. Compared here exactly, in BigDecimal.
     */
    private void assertMatches(IntItem item) {
        QueryItem sent = translate(item);
        LongPredicate accepts;
        if (sent instanceof QueryItem.Term term && term.type() == QueryItem.TermType.INTEGER) {
            long exact = Long.parseLong(term.word());
            accepts = v -> v == exact;
        }
        else if (sent instanceof QueryItem.Term term) {
            BigDecimal exact = new BigDecimal(Double.parseDouble(term.word()));
            accepts = v -> clamp(exact).compareTo(BigDecimal.valueOf(v)) == 0 && exact.stripTrailingZeros().scale() <= 0;
        }
        else if (sent instanceof QueryItem.Range range && range.integers() != null) {
            accepts = range.integers()::contains;
        }
        else if (sent instanceof QueryItem.Range range) {
            accepts = v -> {
                BigDecimal value = BigDecimal.valueOf(v);
                int low = value.compareTo(clamp(bound(range.low()))), high = value.compareTo(clamp(bound(range.high())));
                boolean lowBeyond = range.low() >= 0x1p63, highBeyond = range.high() <= -0x1p63;
                return (range.lowInclusive() ? low >= 0 : low > 0 && ! lowBeyond) && (range.highInclusive() ? high <= 0 : high < 0 && ! highBeyond);
            };
        }
        else throw new AssertionError("unexpected " + sent);
        assertEquals(expected(accepts), matches(item), item + " sent as " + sent);
    }

    private static BigDecimal bound(double value) {
        if (value == Double.NEGATIVE_INFINITY) return BigDecimal.valueOf(Long.MIN_VALUE);
        if (value == Double.POSITIVE_INFINITY) return BigDecimal.valueOf(Long.MAX_VALUE);
        return new BigDecimal(value);
    }

    private static BigDecimal clamp(BigDecimal value) {
        return value.max(BigDecimal.valueOf(Long.MIN_VALUE)).min(BigDecimal.valueOf(Long.MAX_VALUE));
    }

    private List<String> expected(LongPredicate accepts) {
        List<String> ids = new ArrayList<>();
        values.forEach((id, value) -> { if (accepts.test(value)) ids.add(id); });
        return ids.stream().sorted().toList();
    }

    private static QueryItem translate(Item root) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(root.clone());
        return ProtobufQueryTree.translate(DwellPackage.request(query, 10).getQueryTree());
    }

    private List<String> matches(Item root) {
        QueryItem tree = translate(root);
        MatchResult result = QueryMatcher.match(index, tree);
        List<String> ids = new ArrayList<>();
        for (int lid = result.hits().nextSetBit(0); lid >= 0; lid = result.hits().nextSetBit(lid + 1))
            ids.add(index.document(lid).getId().getScheme().getNamespaceSpecific());
        return ids.stream().sorted().toList();
    }

}
