package ai.dwell.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop load in phases of fixed arrival rates (e.g. capacity, then a surge, then capacity
 * again), recording every request: when it was due, its latency measured from then (no
 * coordinated omission), and its HTTP status (-1: no answer within the timeout or a connection
 * failure). At most --max-in-flight requests (default 128) are outstanding, each on its own
 * kept-alive connection, as real clients do: a burst of new connections would overflow the
 * server's accept backlog, and the kernel's SYN retries (1 s, 3 s, ...) would be measured instead
 * of the server. A request due while all are busy waits, and the wait counts in its latency.
 *
 * <pre>
 * java ai.dwell.bench.PhasedLoad -q queryfile --phases rate:seconds[,rate:seconds...] --out requests.csv [--timeout-ms n] host port
 * </pre>
 *
 * The CSV has one line per request: due_ms (from the start), latency_ms, status.
 */
public class PhasedLoad {

    record Phase(double rate, double seconds) {}

    record Outcome(long dueNanos, long latencyNanos, int status) {}

    public static void main(String[] args) throws Exception {
        Path queryFile = null, out = null;
        List<Phase> phases = new ArrayList<>();
        List<String> positional = new ArrayList<>();
        int maxInFlight = 128;
        long timeoutMillis = 10_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-q" -> queryFile = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--max-in-flight" -> maxInFlight = Integer.parseInt(args[++i]);
                case "--timeout-ms" -> timeoutMillis = Long.parseLong(args[++i]);
                case "--phases" -> {
                    for (String phase : args[++i].split(",")) {
                        String[] parts = phase.split(":");
                        phases.add(new Phase(Double.parseDouble(parts[0]), Double.parseDouble(parts[1])));
                    }
                }
                default -> positional.add(args[i]);
            }
        }
        if (queryFile == null || out == null || phases.isEmpty() || positional.size() != 2)
            throw new IllegalArgumentException("usage: -q queryfile --phases rate:seconds[,...] --out file.csv [--timeout-ms n] host port");

        QueryFile queries = QueryFile.read(queryFile, false);
        String base = "http://" + positional.get(0) + ":" + positional.get(1);
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                                      .executor(Executors.newFixedThreadPool(8))
                                      .connectTimeout(Duration.ofSeconds(5)).build();
        List<Long> dues = schedule(phases);
        Outcome[] outcomes = new Outcome[dues.size()];
        Semaphore inFlight = new Semaphore(maxInFlight);
        long begin = System.nanoTime() + 20_000_000;
        Duration timeout = Duration.ofMillis(timeoutMillis);
        for (int i = 0; i < dues.size(); i++) {
            long due = begin + dues.get(i);
            long wait = due - System.nanoTime();
            if (wait > 0) LockSupport.parkNanos(wait);
            int index = i;
            inFlight.acquire(); // waits for a connection: counted in the latency, which runs from the due time
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + queries.get(i).path())).timeout(timeout).GET().build();
            client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
                long latency = System.nanoTime() - due;
                outcomes[index] = new Outcome(dues.get(index), latency, failure != null || response == null ? -1 : response.statusCode());
                inFlight.release();
            });
        }
        inFlight.acquire(maxInFlight);
        write(outcomes, out);
        long ok = java.util.Arrays.stream(outcomes).filter(o -> o.status() == 200).count();
        System.out.printf(Locale.ROOT, "{\"requests\":%d,\"ok\":%d}%n", outcomes.length, ok);
        System.exit(0);
    }

    /** Due times, in nanoseconds from the start, of every request of the phases. */
    static List<Long> schedule(List<Phase> phases) {
        List<Long> dues = new ArrayList<>();
        double start = 0;
        for (Phase phase : phases) {
            long count = Math.round(phase.rate() * phase.seconds());
            for (long k = 0; k < count; k++) dues.add((long) ((start + k / phase.rate()) * 1e9));
            start += phase.seconds();
        }
        return dues;
    }

    static void write(Outcome[] outcomes, Path out) throws IOException {
        try (BufferedWriter writer = Files.newBufferedWriter(out)) {
            writer.write("due_ms,latency_ms,status\n");
            for (Outcome outcome : outcomes)
                writer.write(String.format(Locale.ROOT, "%.3f,%.3f,%d%n", outcome.dueNanos() / 1e6, outcome.latencyNanos() / 1e6, outcome.status()));
        }
    }

}
