package ai.dwell.runtime.clients;

import ai.vespa.feed.client.DocumentId;
import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import ai.vespa.feed.client.OperationParameters;
import ai.vespa.feed.client.Result;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Feeds comments into a running runtime with Vespa's Java feed client (HTTP/2), as a user's feeder
 * would, and prints one line of JSON: how many succeeded, failed, and with what. Run by
 * tests/e2e/test_clients.py: java ... FeedComments http://localhost:8080/ COUNT ARTICLE
 */
public class FeedComments {

    /** Distinct texts: each distinct text costs an embedding (about 10 ms of CPU); the test is about the client. */
    private static final int TEXTS = 500;


    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int count = Integer.parseInt(args[1]);
        String article = args[2];
        long start = System.nanoTime();
        AtomicLong ok = new AtomicLong(), failed = new AtomicLong();
        Map<String, Long> errors = new TreeMap<>();
        try (FeedClient client = FeedClientBuilder.create(endpoint).build()) {
            List<CompletableFuture<Result>> results = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                DocumentId id = DocumentId.of("dwell", "comment", article + "-" + i);
                String json = "{\"fields\":{\"article_id\":\"" + article + "\",\"author_id\":\"author-" + (i % 997) +
                              "\",\"text\":\"Comment number " + (i % TEXTS) + " on this article.\",\"created_at\":" + (1_700_000_000L + i) +
                              ",\"upvotes\":" + (i % 50) + "}}";
                results.add(client.put(id, json, OperationParameters.empty()).whenComplete((result, failure) -> {
                    if (failure == null && result.type() == Result.Type.success) ok.incrementAndGet();
                    else {
                        failed.incrementAndGet();
                        synchronized (errors) { errors.merge(failure == null ? String.valueOf(result.type()) : failure.getClass().getSimpleName() + ": " + failure.getMessage(), 1L, Long::sum); }
                    }
                }));
            }
            for (CompletableFuture<Result> result : results) {
                try { result.join(); } catch (RuntimeException ignored) { }
            }
            var stats = client.stats();
            System.out.println("{\"ok\":" + ok.get() + ",\"failed\":" + failed.get() + ",\"seconds\":" + (System.nanoTime() - start) / 1e9 +
                               ",\"responses\":" + stats.responses() + ",\"responsesByCode\":\"" + stats.statsByCode().keySet() +
                               "\",\"errors\":\"" + errors.toString().replace("\"", "'").replace("\n", " ") + "\"}");
        }
    }

}
