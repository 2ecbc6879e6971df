package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.GlobalId;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Article views rank as the freshness profile's baseline computed document by document, in plain Java from the
 * schema's formulas (not through the engine's compiled programs): the same hits in the same order with the same
 * scores, for random articles, through rounds of random writes (votes changed, comments removed and added, authors'
 * reputation changed or removed). Values are left unset at random (read as Vespa's undefined values), counters go
 * past the log table's 4,096, and one article has more than 4,096 comments, where the engine picks its best by a
 * threshold; ranked on two threads (split as on more).
 */
public class ArticleViewPropertyTest {

    private static final long NOW = 1_800_000_000L;
    private static final int ARTICLES = 40, AUTHORS = 300, MISSING_AUTHORS = 30;

    private final Random random = new Random(17);
    private final Map<String, Comment> comments = new HashMap<>();
    private final Map<String, Float> reputations = new HashMap<>(); // authors on the node with a reputation
    private IndexingScripts indexing;
    private SearchThreads threads;
    private ContentNode node;
    private DocumentType commentType, authorType;
    private int nextComment = 0;

    /** The fields of a comment the baseline reads; null: not set. */
    private record Comment(String id, int article, int author, long createdAt, Integer upvotes, Integer downvotes, Integer replies, Integer reports) {}

    @BeforeEach
    void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
        threads = SearchThreads.fixed(2, 0);
        node = new ContentNode(cluster, 0, threads);
        DocumentTypeManager types = indexing.documentTypes();
        commentType = types.getDocumentType("comment");
        authorType = types.getDocumentType("author");
        for (int a = 0; a < AUTHORS; a++) putAuthor(a, random.nextInt(10) == 0 ? null : random.nextFloat() * 2 - 0.5f);
        for (int i = 0; i < 4500; i++) putComment(0); // the large article
        for (int i = 0; i < 3000; i++) putComment(1 + (int) (Math.pow(random.nextDouble(), 2) * (ARTICLES - 1)));
    }

    @AfterEach
    void tearDown() {
        node.close();
        threads.close();
    }

    @Test
    void articleViewsRankAsTheBaselineComputedDocumentByDocument() {
        for (int round = 0; round < 6; round++) {
            if (round > 0) writeAtRandom(400);
            for (int view = 0; view < 8; view++) assertView(view == 0 ? 0 : random.nextInt(ARTICLES), view % 2 == 0 ? 300 : 10);
        }
    }

    private void writeAtRandom(int writes) {
        List<String> ids = new ArrayList<>(comments.keySet());
        for (int w = 0; w < writes; w++) {
            int kind = random.nextInt(10);
            if (kind < 5) { // a vote: the comment written again with new counters
                Comment old = comments.get(ids.get(random.nextInt(ids.size())));
                if (old == null) continue;
                put(new Comment(old.id(), old.article(), old.author(), old.createdAt(), counter(), counter(), old.replies(), old.reports()));
            }
            else if (kind < 7) {
                String id = ids.get(random.nextInt(ids.size()));
                if (comments.remove(id) != null) node.remove(new DocumentId("id:dwell:comment::" + id));
            }
            else if (kind < 9) putComment(random.nextInt(ARTICLES));
            else putAuthor(random.nextInt(AUTHORS), random.nextInt(4) == 0 ? null : random.nextFloat());
        }
    }

    private void assertView(int article, int hits) {
        Query query = new Query("?ranking=freshness");
        query.getModel().getQueryTree().setRoot(new WordItem("a" + article, "article_id"));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, hits));
        assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());

        List<Comment> expected = comments.values().stream().filter(c -> c.article() == article)
                                         .sorted(Comparator.comparingDouble(this::baseline).reversed()).toList();
        assertEquals(expected.size(), reply.getTotalHitCount(), "matches of article " + article);
        assertEquals(Math.min(hits, expected.size()), reply.getHitsCount(), "hits of article " + article);
        for (int h = 0; h < reply.getHitsCount(); h++) {
            Comment comment = expected.get(h);
            String where = "hit " + h + " of article " + article + " (" + expected.size() + " comments)";
            assertEquals(new GlobalId(new DocumentId("id:dwell:comment::" + comment.id()).getGlobalId()), new GlobalId(reply.getHits(h).getGlobalId().toByteArray()), where);
            assertEquals(baseline(comment), reply.getHits(h).getRelevance(), 1e-12 * Math.max(1, Math.abs(baseline(comment))), where);
        }
    }

    /** The schema's baseline, from its functions, with Vespa's undefined values where a field is not set. */
    private double baseline(Comment c) {
        double ageHours = Math.max(0, NOW - c.createdAt()) / 3600.0;
        Float reputation = reputations.get("u" + c.author());
        return 2.0 * Math.exp(-ageHours / 24)
               + 0.5 * logOfCount(c.upvotes()) - 0.5 * logOfCount(c.downvotes())
               + 0.25 * logOfCount(c.replies())
               + 1.0 * (reputation == null ? 0 : reputation)
               - 0.5 * logOfCount(c.reports());
    }

    /** log(1 + max(0, attribute(x))): an unset int attribute is Integer.MIN_VALUE. */
    private static double logOfCount(Integer value) {
        return Math.log(1 + Math.max(0, value == null ? Integer.MIN_VALUE : value));
    }

    private Integer counter() {
        int kind = random.nextInt(20);
        return kind == 0 ? null : Integer.valueOf(kind == 1 ? 4000 + random.nextInt(200) : kind == 2 ? -random.nextInt(3) : random.nextInt(60));
    }

    private void putComment(int article) {
        String id = "c" + nextComment++;
        long createdAt = NOW - 7L * nextComment - random.nextInt(7); // distinct: no ties in the baseline
        int author = random.nextInt(AUTHORS + MISSING_AUTHORS);
        put(new Comment(id, article, author, createdAt, counter(), counter(), counter(), random.nextInt(10) == 0 ? Integer.valueOf(1) : random.nextInt(5) == 0 ? null : Integer.valueOf(0)));
    }

    private void put(Comment c) {
        Document document = new Document(commentType, new DocumentId("id:dwell:comment::" + c.id()));
        document.setFieldValue("comment_id", new StringFieldValue(c.id()));
        document.setFieldValue("article_id", new StringFieldValue("a" + c.article()));
        document.setFieldValue("author_id", new StringFieldValue("u" + c.author()));
        document.setFieldValue("author_ref", new ReferenceFieldValue((ReferenceDataType) commentType.getField("author_ref").getDataType(),
                                                                    new DocumentId("id:dwell:author::u" + c.author())));
        document.setFieldValue("created_at", new LongFieldValue(c.createdAt()));
        if (c.upvotes() != null) document.setFieldValue("upvotes", new IntegerFieldValue(c.upvotes()));
        if (c.downvotes() != null) document.setFieldValue("downvotes", new IntegerFieldValue(c.downvotes()));
        if (c.replies() != null) document.setFieldValue("reply_count", new IntegerFieldValue(c.replies()));
        if (c.reports() != null) document.setFieldValue("report_count", new IntegerFieldValue(c.reports()));
        node.put(indexing.process(document));
        comments.put(c.id(), c);
    }

    private void putAuthor(int author, Float reputation) {
        Document document = new Document(authorType, new DocumentId("id:dwell:author::u" + author));
        document.setFieldValue("author_id", new StringFieldValue("u" + author));
        if (reputation != null) document.setFieldValue("reputation", new FloatFieldValue(reputation));
        node.put(indexing.process(document));
        if (reputation != null) reputations.put("u" + author, reputation);
        else reputations.remove("u" + author);
    }

}
