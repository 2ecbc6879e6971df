package ai.dwell.bench;

import ai.vespa.feed.client.DocumentId;
import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import ai.vespa.feed.client.OperationParameters;
import ai.vespa.feed.client.Result;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * Durable writes through /document/v1 with Vespa's Java feed client (HTTP/2), as a user's feeder sends them:
 *
 * <pre>
 * java ai.dwell.bench.FeedBenchmark --mode put|update|remove-missing --corpus comments.jsonl --prefix P
 *                                   [--count n] [--targets n] [--rate ops] [--seconds s] [--connections c] endpoint
 * </pre>
 *
 * put: comments with the fields of the corpus's lines (in order, from the top again at the end) under new ids P-0, P-1, ...; update: partial
 * updates (upvotes += 1) of P-0 ... P-(targets-1), which a put run must have created; remove-missing: removes
 * of documents that do not exist, which the document API answers without a write (no indexing, no fsync):
 * the floor of the HTTP/2 and document API round trip. Without --rate, count
 * operations as fast as the server takes them (at most 4,096 in flight): the maximum rate. With --rate, open
 * loop: operations due at that rate for --seconds, each latency measured from when it was due. The last line
 * of output is one JSON object.
 */
public class FeedBenchmark {

    private static final int MAX_IN_FLIGHT = 4096;

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new TreeMap<>();
        String endpoint = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--")) options.put(args[i].substring(2), args[++i]);
            else endpoint = args[i];
        }
        if (endpoint == null || ! options.containsKey("mode") || ! options.containsKey("prefix"))
            throw new IllegalArgumentException("Usage: FeedBenchmark --mode put|update --corpus FILE --prefix P [--count n] [--targets n] [--rate ops] [--seconds s] [--connections c] ENDPOINT");
        boolean put = options.get("mode").equals("put");
        Corpus fields = put ? new Corpus(Path.of(options.get("corpus"))) : null;
        String prefix = options.get("prefix");
        int targets = Integer.parseInt(options.getOrDefault("targets", "10000"));
        double rate = Double.parseDouble(options.getOrDefault("rate", "0"));
        int seconds = Integer.parseInt(options.getOrDefault("seconds", "10"));
        long count = rate > 0 ? (long) (rate * seconds) : Long.parseLong(options.getOrDefault("count", "20000"));
        Latencies latencies = new Latencies((int) Math.min(count, 20_000_000));
        Map<String, Long> errors = new TreeMap<>();
        Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
        long begin;
        try (FeedClient client = FeedClientBuilder.create(URI.create(endpoint))
                                                  .setConnectionsPerEndpoint(Integer.parseInt(options.getOrDefault("connections", "4")))
                                                  .build()) {
            begin = System.nanoTime() + 10_000_000;
            long intervalNanos = rate > 0 ? (long) (1e9 / rate) : 0;
            long nextProgress = begin + PROGRESS_NANOS;
            for (long i = 0; i < count; i++) {
                if (System.nanoTime() > nextProgress) {
                    nextProgress += PROGRESS_NANOS;
                    progress(options.get("mode"), latencies, count, begin);
                }
                long due = rate > 0 ? begin + i * intervalNanos : System.nanoTime();
                if (rate > 0) {
                    long wait = due - System.nanoTime();
                    if (wait > 0) LockSupport.parkNanos(wait);
                }
                inFlight.acquireUninterruptibly();
                CompletableFuture<Result> result;
                if (put) {
                    DocumentId id = DocumentId.of("dwell", "comment", prefix + "-" + i);
                    result = client.put(id, "{\"fields\":" + fields.next() + "}", OperationParameters.empty());
                }
                else if (options.get("mode").equals("remove-missing")) {
                    result = client.remove(DocumentId.of("dwell", "comment", prefix + "-missing-" + i), OperationParameters.empty());
                }
                else {
                    DocumentId id = DocumentId.of("dwell", "comment", prefix + "-" + (i % targets));
                    result = client.update(id, "{\"fields\":{\"upvotes\":{\"increment\":1}}}", OperationParameters.empty());
                }
                result.whenComplete((outcome, failure) -> {
                    long micros = (System.nanoTime() - due) / 1000;
                    if (failure == null && outcome.type() == Result.Type.success) latencies.add(micros, 200, false);
                    else {
                        latencies.failed();
                        String error = failure == null ? String.valueOf(outcome.type()) : failure.getClass().getSimpleName() + ": " + failure.getMessage();
                        synchronized (errors) { errors.merge(error.length() > 200 ? error.substring(0, 200) : error, 1L, Long::sum); }
                    }
                    inFlight.release();
                });
            }
            inFlight.acquireUninterruptibly(MAX_IN_FLIGHT);
        }
        double elapsed = (System.nanoTime() - begin) / 1e9;
        int ok = latencies.count();
        System.out.printf(Locale.ROOT, "%s: %d ok, %d failed in %.2f s: %.0f ops/s; latency ms p50 %.2f p95 %.2f p99 %.2f%n",
                          options.get("mode"), ok, latencies.failures(), elapsed, ok / elapsed,
                          latencies.percentileMillis(50), latencies.percentileMillis(95), latencies.percentileMillis(99));
        System.out.printf(Locale.ROOT, "{\"mode\":\"%s\",\"offered\":%.1f,\"ok\":%d,\"failed\":%d,\"seconds\":%.3f,\"rate\":%.1f,"
                                       + "\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"errors\":\"%s\"}%n",
                          options.get("mode"), rate, ok, latencies.failures(), elapsed, ok / elapsed,
                          latencies.percentileMillis(50), latencies.percentileMillis(95), latencies.percentileMillis(99),
                          errors.toString().replace("\"", "'").replace("\n", " "));
        System.exit(0);
    }

    private static final long PROGRESS_NANOS = 10_000_000_000L;

    /** A progress line on standard error (standard output is the result). */
    private static void progress(String mode, Latencies latencies, long count, long begin) {
        double seconds = (System.nanoTime() - begin) / 1e9;
        System.err.printf(Locale.ROOT, "%s: %,d of %,d ok, %,d failed, %.0f ops/s over %.0f s%n",
                          mode, latencies.count(), count, latencies.failures(), latencies.count() / seconds, seconds);
    }

    /** The fields objects of the document lines of a corpus file ({"put": id, "fields": {...}}), read as needed, from the top again at the end. */
    static final class Corpus {

        private final Path path;
        private BufferedReader reader;

        Corpus(Path path) throws IOException {
            this.path = path;
            this.reader = Files.newBufferedReader(path);
        }

        String next() throws IOException {
            for (int attempt = 0; attempt < 2; attempt++) {
                String line;
                while ((line = reader.readLine()) != null)
                    if (line.contains("\"fields\":")) return line.substring(line.indexOf('{', line.indexOf("\"fields\":")), line.lastIndexOf('}'));
                reader.close();
                reader = Files.newBufferedReader(path);
            }
            throw new IllegalArgumentException("No documents in " + path);
        }

    }

}
