package ai.dwell.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends queries to a Vespa container and reports latencies, with vespa-fbench's interface:
 *
 * <pre>
 * java ai.dwell.bench.LoadGenerator -n clients -c cycle_ms -s seconds -q queryfile [-P] [-H header] [-i ignore]
 *                                   [--rate qps] [--slo ms,ms] [--max-in-flight n] host port
 * </pre>
 *
 * Without --rate it runs closed loop like fbench: n clients, each sending its next query when
 * the previous answered and at least cycle_ms passed. With --rate it runs open loop: queries are
 * due at a fixed arrival rate whatever the server does, and each latency is measured from the
 * time the query was due, so queueing in an overloaded server shows (no coordinated omission).
 * -i ignores the first results, as warm-up. The summary ends with one JSON line for scripts.
 */
public class LoadGenerator {

    record Options(int clients, long cycleMillis, int seconds, Path queryFile, boolean post, List<String> headers,
                   int ignore, double rate, double[] slosMillis, int maxInFlight, String host, int port) {}

    public static void main(String[] args) throws Exception {
        Options options = parse(args);
        QueryFile queries = QueryFile.read(options.queryFile(), options.post());
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                                      .executor(Executors.newFixedThreadPool(Math.max(4, options.clients())))
                                      .connectTimeout(Duration.ofSeconds(5)).build();
        Latencies latencies = new Latencies(20_000_000);
        long start = System.nanoTime();
        long sent = options.rate() > 0 ? openLoop(options, queries, client, latencies) : closedLoop(options, queries, client, latencies);
        double elapsed = (System.nanoTime() - start) / 1e9;
        report(options, latencies, sent, elapsed);
        System.exit(0);
    }

    /** Queries due at a fixed rate; latency from when each was due. */
    static long openLoop(Options options, QueryFile queries, HttpClient client, Latencies latencies) throws InterruptedException {
        long intervalNanos = (long) (1e9 / options.rate());
        long total = (long) (options.rate() * options.seconds());
        long begin = System.nanoTime() + 10_000_000;
        Semaphore inFlight = new Semaphore(options.maxInFlight());
        AtomicLong done = new AtomicLong();
        for (long i = 0; i < total; i++) {
            long due = begin + i * intervalNanos;
            long wait = due - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            if ( ! inFlight.tryAcquire()) { // the server is so far behind that we would only measure our own queue
                latencies.failed();
                continue;
            }
            boolean record = i >= options.ignore();
            send(client, request(options, queries.get(i))).whenComplete((response, failure) -> {
                long latency = (System.nanoTime() - due) / 1000;
                if (record) recordResult(latencies, latency, response, failure);
                inFlight.release();
                done.incrementAndGet();
            });
        }
        inFlight.acquire(options.maxInFlight());
        return total;
    }

    /** fbench's closed loop: n clients, each waits for its answer and for the cycle time. */
    static long closedLoop(Options options, QueryFile queries, HttpClient client, Latencies latencies) throws InterruptedException {
        long end = System.nanoTime() + options.seconds() * 1_000_000_000L;
        AtomicLong next = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < options.clients(); c++) {
            Thread thread = new Thread(() -> {
                while (System.nanoTime() < end) {
                    long i = next.getAndIncrement();
                    long began = System.nanoTime();
                    try {
                        HttpResponse<String> response = client.send(request(options, queries.get(i)), HttpResponse.BodyHandlers.ofString());
                        if (i >= options.ignore()) recordResult(latencies, (System.nanoTime() - began) / 1000, response, null);
                    }
                    catch (IOException e) {
                        latencies.failed();
                    }
                    catch (InterruptedException e) {
                        return;
                    }
                    long rest = options.cycleMillis() * 1_000_000 - (System.nanoTime() - began);
                    if (rest > 0) LockSupport.parkNanos(rest);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) thread.join();
        return next.get();
    }

    private static CompletableFuture<HttpResponse<String>> send(HttpClient client, HttpRequest request) {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void recordResult(Latencies latencies, long micros, HttpResponse<String> response, Throwable failure) {
        if (failure != null || response == null) { latencies.failed(); return; }
        latencies.add(micros, response.statusCode(), response.body().contains("\"totalCount\":0"));
    }

    private static HttpRequest request(Options options, QueryFile.Query query) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://" + options.host() + ":" + options.port() + query.path()))
                                                 .timeout(Duration.ofSeconds(30));
        for (String header : options.headers()) {
            int colon = header.indexOf(':');
            builder.header(header.substring(0, colon).trim(), header.substring(colon + 1).trim());
        }
        if (options.post()) builder.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(query.body()));
        else builder.GET();
        return builder.build();
    }

    static void report(Options options, Latencies latencies, long sent, double elapsedSeconds) {
        int ok = latencies.count();
        System.out.printf(Locale.ROOT, "***************** Benchmark Summary *****************%n");
        System.out.printf(Locale.ROOT, "mode:                  %s%n", options.rate() > 0 ? "open loop at " + options.rate() + " q/s" : "closed loop, " + options.clients() + " clients");
        System.out.printf(Locale.ROOT, "successful requests:   %d%n", ok);
        System.out.printf(Locale.ROOT, "failed requests:       %d%n", latencies.failures());
        System.out.printf(Locale.ROOT, "zero hit queries:      %d%n", latencies.zeroHits());
        System.out.printf(Locale.ROOT, "http request status breakdown: %s%n", latencies.statusCodes());
        System.out.printf(Locale.ROOT, "actual query rate:     %.2f Q/s%n", ok / elapsedSeconds);
        System.out.printf(Locale.ROOT, "minimum response time: %.2f ms%n", latencies.minMillis());
        System.out.printf(Locale.ROOT, "maximum response time: %.2f ms%n", latencies.maxMillis());
        System.out.printf(Locale.ROOT, "average response time: %.2f ms%n", latencies.averageMillis());
        for (double p : new double[] {25, 50, 75, 90, 95, 99, 99.9})
            System.out.printf(Locale.ROOT, "%5.1f percentile:      %.2f ms%n", p, latencies.percentileMillis(p));
        StringBuilder slos = new StringBuilder();
        for (double slo : options.slosMillis()) {
            System.out.printf(Locale.ROOT, "SLO miss rate @%4.0f ms: %.4f%n", slo, latencies.missRate(slo));
            slos.append(String.format(Locale.ROOT, ",\"miss_%.0fms\":%.6f", slo, latencies.missRate(slo)));
        }
        StringBuilder codes = new StringBuilder();
        latencies.statusCodes().forEach((code, n) -> codes.append(codes.length() == 0 ? "" : ",").append('"').append(code).append("\":").append(n));
        System.out.printf(Locale.ROOT, "{\"rate\":%.2f,\"achieved\":%.2f,\"ok\":%d,\"failed\":%d,\"p50\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"avg\":%.3f%s,\"status\":{%s}}%n",
                          options.rate(), ok / elapsedSeconds, ok, latencies.failures(), latencies.percentileMillis(50),
                          latencies.percentileMillis(95), latencies.percentileMillis(99), latencies.averageMillis(), slos, codes);
    }

    static Options parse(String[] args) {
        int clients = 10, seconds = 60, ignore = 0, maxInFlight = 4096;
        long cycle = 0;
        double rate = 0;
        double[] slos = {10, 50};
        Path file = null;
        boolean post = false;
        List<String> headers = new ArrayList<>(), positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-n" -> clients = Integer.parseInt(args[++i]);
                case "-c" -> cycle = Long.parseLong(args[++i]);
                case "-s" -> seconds = Integer.parseInt(args[++i]);
                case "-q" -> file = Path.of(args[++i]);
                case "-P" -> post = true;
                case "-H" -> headers.add(args[++i]);
                case "-i" -> ignore = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                case "--max-in-flight" -> maxInFlight = Integer.parseInt(args[++i]);
                case "--slo" -> slos = java.util.Arrays.stream(args[++i].split(",")).mapToDouble(Double::parseDouble).toArray();
                default -> positional.add(args[i]);
            }
        }
        if (file == null || positional.size() != 2)
            throw new IllegalArgumentException("usage: -n clients -c cycle_ms -s seconds -q queryfile [-P] [-H header] [-i ignore] [--rate qps] [--slo ms,ms] host port");
        return new Options(clients, cycle, seconds, file, post, headers, ignore, rate, slos, maxInFlight,
                           positional.get(0), Integer.parseInt(positional.get(1)));
    }

}
