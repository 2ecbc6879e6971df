package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.ReferenceFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;

import java.util.Arrays;
import java.util.Random;

/**
 * Not a test (run it by hand): what one article view costs on one content node holding W1's share of a
 * three-node cluster, in process (no HTTP, no RPC), as ContentNode.search runs it. W1 per node: 333,000
 * comments of 20,000 articles (Zipf 1.05: the largest has ~12% of the comments), each by one of 200,000
 * authors (the global author documents, all on every node), fed in random article order as a news site
 * receives them. Prints, per rank profile, the time of a view of the largest article (best and median of
 * repeated rounds) and the mean over views drawn by popularity, in µs and µs per matched comment.
 *
 * <pre>
 * cd runtime && mvn -q -o test-compile && java -Xmx6g -cp target/test-classes:target/classes:$(cat target/classpath.txt) \
 *     ai.dwell.runtime.engine.ArticleViewBench [comments] [rounds] [grouped]
 * </pre>
 */
public class ArticleViewBench {

    private static final long NOW = 1_800_000_000L;
    private static final int ARTICLES = 20_000, AUTHORS = 200_000;

    public static void main(String[] args) {
        int comments = args.length > 0 ? Integer.parseInt(args[0]) : 333_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        boolean grouped = args.length > 2 && args[2].equals("grouped");
        ContentClusterConfig cluster = DwellPackage.cluster();
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        try (SearchThreads threads = SearchThreads.fixed(1, 0)) {
            ContentNode node = new ContentNode(cluster, 0, threads);
            int[] sizes = feed(node, indexing, comments, grouped);
            int largest = 0;
            for (int a = 1; a < ARTICLES; a++) if (sizes[a] > sizes[largest]) largest = a;
            System.out.printf("%,d comments, largest article a%d with %,d%n", comments, largest, sizes[largest]);
            for (String profile : new String[] { "freshness", "neural", "neural_onnx" }) {
                double[] largestMicros = views(node, profile, new int[] { largest }, rounds);
                int[] drawn = drawn(sizes, rounds * 5, new Random(3));
                double[] drawnMicros = views(node, profile, drawn, 1);
                long matched = 0;
                for (int a : drawn) matched += sizes[a];
                Arrays.sort(largestMicros);
                System.out.printf("%-12s largest: best %8.0f µs, median %8.0f µs (%.3f µs/comment)   by popularity: mean %6.0f µs (%.3f µs/comment)%n",
                                  profile, largestMicros[0], largestMicros[largestMicros.length / 2], largestMicros[largestMicros.length / 2] / sizes[largest],
                                  mean(drawnMicros), Arrays.stream(drawnMicros).sum() / matched);
            }
            node.close();
        }
    }

    /** Searches each article in turn (after a warm-up pass), and returns the µs of each search. */
    private static double[] views(ContentNode node, String profile, int[] articles, int repeat) {
        SearchProtocol.SearchRequest[] requests = new SearchProtocol.SearchRequest[articles.length];
        for (int i = 0; i < articles.length; i++) requests[i] = request(profile, articles[i]);
        for (int i = 0; i < Math.max(20, requests.length / 4); i++) check(node.search(requests[i % requests.length]));
        double[] micros = new double[articles.length * repeat];
        int m = 0;
        for (int r = 0; r < repeat; r++)
            for (SearchProtocol.SearchRequest request : requests) {
                long start = System.nanoTime();
                check(node.search(request));
                micros[m++] = (System.nanoTime() - start) / 1000.0;
            }
        return micros;
    }

    private static void check(SearchProtocol.SearchReply reply) {
        if (reply.getErrorsCount() > 0) throw new IllegalStateException(reply.getErrorsList().toString());
    }

    private static SearchProtocol.SearchRequest request(String profile, int article) {
        Query query = new Query("?ranking=" + profile);
        query.getModel().getQueryTree().setRoot(new WordItem("a" + article, "article_id"));
        query.getRanking().getProperties().put("vespa.now", String.valueOf(NOW));
        return DwellPackage.request(query, 20);
    }

    /**
     * Feeds the authors, then the comments in random article order (grouped: the same comments, each article's
     * together, so that its local ids are contiguous); returns the comments per article.
     */
    private static int[] feed(ContentNode node, IndexingScripts indexing, int comments, boolean grouped) {
        DocumentTypeManager types = indexing.documentTypes();
        DocumentType authorType = types.getDocumentType("author"), commentType = types.getDocumentType("comment");
        ReferenceDataType reference = (ReferenceDataType) commentType.getField("author_ref").getDataType();
        Random random = new Random(7);
        long start = System.nanoTime();
        for (int a = 0; a < AUTHORS; a++) {
            Document author = new Document(authorType, new DocumentId("id:dwell:author::u" + a));
            author.setFieldValue("author_id", new StringFieldValue("u" + a));
            author.setFieldValue("reputation", new FloatFieldValue(random.nextFloat()));
            author.setFieldValue("helpful_ratio", new FloatFieldValue(random.nextFloat()));
            author.setFieldValue("comment_count", new IntegerFieldValue(random.nextInt(200)));
            node.put(indexing.process(author));
        }
        double[] cumulative = zipf(ARTICLES, 1.05);
        int[] sizes = new int[ARTICLES];
        int[] articles = new int[comments];
        for (int i = 0; i < comments; i++) articles[i] = draw(cumulative, random);
        if (grouped) Arrays.sort(articles);
        for (int i = 0; i < comments; i++) {
            int article = articles[i];
            sizes[article]++;
            String author = "u" + random.nextInt(AUTHORS);
            Document comment = new Document(commentType, new DocumentId("id:dwell:comment::c" + i));
            comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
            comment.setFieldValue("article_id", new StringFieldValue("a" + article));
            comment.setFieldValue("author_id", new StringFieldValue(author));
            comment.setFieldValue("author_ref", new ReferenceFieldValue(reference, new DocumentId("id:dwell:author::" + author)));
            comment.setFieldValue("created_at", new LongFieldValue(NOW - random.nextInt(7 * 86400)));
            comment.setFieldValue("upvotes", new IntegerFieldValue(random.nextInt(100)));
            comment.setFieldValue("downvotes", new IntegerFieldValue(random.nextInt(20)));
            comment.setFieldValue("reply_count", new IntegerFieldValue(random.nextInt(10)));
            comment.setFieldValue("text_length", new IntegerFieldValue(20 + random.nextInt(600)));
            comment.setFieldValue("report_count", new IntegerFieldValue(random.nextInt(50) == 0 ? 1 : 0));
            comment.setFieldValue("reads", new IntegerFieldValue(random.nextInt(500)));
            comment.setFieldValue("read_ms", new LongFieldValue(random.nextInt(500) * 3000L));
            node.put(indexing.process(comment));
            if ((i + 1) % 100_000 == 0) System.err.printf("fed %,d comments%n", i + 1);
        }
        System.err.printf("fed %,d authors and %,d comments in %.1f s%n", AUTHORS, comments, (System.nanoTime() - start) / 1e9);
        return sizes;
    }

    /** Articles drawn by their share of comments (views follow popularity). */
    private static int[] drawn(int[] sizes, int count, Random random) {
        double[] cumulative = new double[sizes.length];
        double sum = 0;
        for (int a = 0; a < sizes.length; a++) cumulative[a] = sum += sizes[a];
        for (int a = 0; a < sizes.length; a++) cumulative[a] /= sum;
        int[] drawn = new int[count];
        for (int i = 0; i < count; i++) drawn[i] = draw(cumulative, random);
        return drawn;
    }

    private static double[] zipf(int n, double exponent) {
        double[] cumulative = new double[n];
        double sum = 0;
        for (int r = 0; r < n; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, exponent);
        for (int r = 0; r < n; r++) cumulative[r] /= sum;
        return cumulative;
    }

    private static int draw(double[] cumulative, Random random) {
        int at = Arrays.binarySearch(cumulative, random.nextDouble());
        return Math.min(cumulative.length - 1, at >= 0 ? at : -at - 1);
    }

    private static double mean(double[] values) { return Arrays.stream(values).average().orElse(0); }

}
