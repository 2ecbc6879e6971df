package ai.dwell.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * time the query was due, so queueing in an overloaded server shows (no coordinated omission),
 * over --max-in-flight kept-alive connections (default 256): a query due while all are busy waits
 * for one, and that wait is in its latency. -i ignores the first results, as warm-up. The summary
 * ends with one JSON line for scripts.
 *
 * Like fbench, it costs little CPU of its own: one selector thread drives every connection
 * ({@link SelectorHttpClient}), opened before the first query. The JDK's HttpClient, used before,
 * took about 0.9 ms of CPU per request, as much as the query it measured on these machines.
 */
public class LoadGenerator {

    record Options(int clients, long cycleMillis, int seconds, Path queryFile, boolean post, List<String> headers,
                   int ignore, double rate, double[] slosMillis, int maxInFlight, String host, int port) {}

    private static final byte[] ZERO_HITS = "\"totalCount\":0".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        Options options = parse(args);
        QueryFile queries = QueryFile.read(options.queryFile(), options.post());
        Latencies latencies = new Latencies(20_000_000);
        long start = System.nanoTime();
        long sent = options.rate() > 0 ? openLoop(options, queries, latencies) : closedLoop(options, queries, latencies);
        double elapsed = (System.nanoTime() - start) / 1e9;
        report(options, latencies, sent, elapsed);
        System.exit(0);
    }

    /**
     * Queries due at a fixed rate over --max-in-flight connections; latency from when each was due,
     * including any wait for a free connection.
     */
    static long openLoop(Options options, QueryFile queries, Latencies latencies) throws Exception {
        long intervalNanos = (long) (1e9 / options.rate());
        int total = (int) (options.rate() * options.seconds());
        long[] dues = new long[total];
        CountDownLatch answered = new CountDownLatch(total);
        SelectorHttpClient.Completion record = (index, status, response, doneNanos) -> {
            if (index >= options.ignore()) record(latencies, (doneNanos - dues[index]) / 1000, status, response);
            answered.countDown();
        };
        try (SelectorHttpClient client = client(options, Math.min(options.maxInFlight(), total), record)) {
            long begin = System.nanoTime() + 10_000_000;
            for (int i = 0; i < total; i++) {
                dues[i] = begin + i * intervalNanos;
                long wait = dues[i] - System.nanoTime();
                if (wait > 0) LockSupport.parkNanos(wait);
                client.send(i, request(client, options, queries.get(i)));
            }
            answered.await();
        }
        return total;
    }

    /** fbench's closed loop: n clients, each sends its next query when its answer came and the cycle time passed. */
    static long closedLoop(Options options, QueryFile queries, Latencies latencies) throws Exception {
        long end = System.nanoTime() + options.seconds() * 1_000_000_000L;
        AtomicInteger next = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(options.clients());
        long[] sentAt = new long[options.clients()];
        ScheduledExecutorService cycle = Executors.newSingleThreadScheduledExecutor();
        SelectorHttpClient[] client = new SelectorHttpClient[1];
        Map<Integer, Integer> clientOf = new ConcurrentHashMap<>();
        java.util.function.IntConsumer sendNext = c -> {
            int i = next.getAndIncrement();
            clientOf.put(i, c);
            sentAt[c] = System.nanoTime();
            client[0].send(i, request(client[0], options, queries.get(i)));
        };
        SelectorHttpClient.Completion record = (index, status, response, doneNanos) -> {
            int c = clientOf.remove(index);
            if (index >= options.ignore()) record(latencies, (doneNanos - sentAt[c]) / 1000, status, response);
            if (doneNanos >= end) { finished.countDown(); return; }
            long rest = options.cycleMillis() * 1_000_000 - (doneNanos - sentAt[c]);
            if (rest > 0) cycle.schedule(() -> sendNext.accept(c), rest, TimeUnit.NANOSECONDS);
            else sendNext.accept(c);
        };
        try (SelectorHttpClient opened = client(options, options.clients(), record)) {
            client[0] = opened;
            for (int c = 0; c < options.clients(); c++) sendNext.accept(c);
            finished.await();
        }
        finally {
            cycle.shutdownNow();
        }
        return next.get();
    }

    private static SelectorHttpClient client(Options options, int connections, SelectorHttpClient.Completion record) throws IOException {
        return new SelectorHttpClient(options.host(), options.port(), connections, 30_000_000_000L, true, record);
    }

    private static void record(Latencies latencies, long micros, int status, ResponseReader.Response response) {
        if (response == null) latencies.failed();
        else latencies.add(micros, status, response.contains(ZERO_HITS));
    }

    private static byte[] request(SelectorHttpClient client, Options options, QueryFile.Query query) {
        return client.request(query.path(), options.headers(), options.post() ? query.body() : null);
    }

    static void report(Options options, Latencies latencies, long sent, double elapsedSeconds) {
        int ok = latencies.count();
        System.out.printf(Locale.ROOT, "***************** Benchmark Summary *****************%n");
        System.out.printf(Locale.ROOT, "mode:                  %s%n", options.rate() > 0 ? "open loop at " + options.rate() + " q/s" : "closed loop, " + options.clients() + " clients");
        System.out.printf(Locale.ROOT, "successful requests:   %d%n", ok);
        System.out.printf(Locale.ROOT, "refused requests:      %d (a status other than 2xx; not in the response times)%n", latencies.refused());
        System.out.printf(Locale.ROOT, "failed requests:       %d%n", latencies.failures());
        System.out.printf(Locale.ROOT, "zero hit queries:      %d%n", latencies.zeroHits());
        System.out.printf(Locale.ROOT, "http request status breakdown: %s%n", latencies.statusCodes());
        System.out.printf(Locale.ROOT, "actual query rate:     %.2f Q/s (answered with 2xx)%n", ok / elapsedSeconds);
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
        System.out.printf(Locale.ROOT, "{\"rate\":%.2f,\"achieved\":%.2f,\"ok\":%d,\"refused\":%d,\"failed\":%d,\"p50\":%.3f,\"p90\":%.3f,\"p95\":%.3f,\"p99\":%.3f,\"avg\":%.3f%s,\"status\":{%s}}%n",
                          options.rate(), ok / elapsedSeconds, ok, latencies.refused(), latencies.failures(), latencies.percentileMillis(50),
                          latencies.percentileMillis(90), latencies.percentileMillis(95), latencies.percentileMillis(99), latencies.averageMillis(), slos, codes);
    }

    static Options parse(String[] args) {
        int clients = 10, seconds = 60, ignore = 0, maxInFlight = 256;
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
