package ai.dwell.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop load in phases of fixed arrival rates (e.g. capacity, then a surge, then capacity
 * again), recording every request: when it was due, its latency measured from then (no
 * coordinated omission), and its HTTP status (-1: no answer within the timeout or a connection
 * failure). Requests go over --connections kept-alive connections (default 128), opened before
 * the first is due, as a pool of real clients has them: a burst of new connections would overflow
 * the server's accept backlog, and the kernel's SYN retries (1 s, 3 s, ...) would be measured
 * instead of the server. A request due while all are busy waits, and the wait counts in its
 * latency. One selector thread drives them all ({@link SelectorHttpClient}), so that the load
 * generator, on the same two cores as the server, takes little of the CPU it measures.
 *
 * <pre>
 * java ai.dwell.bench.PhasedLoad -q queryfile --phases rate:seconds[,rate:seconds...] --out requests.csv [--timeout-ms n] [--connections n] host port
 * </pre>
 *
 * The CSV has one line per request: due_ms (from the start), latency_ms, status. The last line of
 * the output is a JSON summary: requests, ok (200) and cpu_ms, the CPU this process used.
 */
public class PhasedLoad {

    record Phase(double rate, double seconds) {}

    record Outcome(long dueNanos, long latencyNanos, int status) {}

    public static void main(String[] args) throws Exception {
        Path queryFile = null, out = null;
        List<Phase> phases = new ArrayList<>();
        List<String> positional = new ArrayList<>();
        int connections = 128;
        long timeoutMillis = 10_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-q" -> queryFile = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--connections" -> connections = Integer.parseInt(args[++i]);
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
            throw new IllegalArgumentException("usage: -q queryfile --phases rate:seconds[,...] --out file.csv [--timeout-ms n] [--connections n] host port");

        QueryFile queries = QueryFile.read(queryFile, false);
        List<Long> dues = schedule(phases);
        Outcome[] outcomes = new Outcome[dues.size()];
        long[] dueNanos = new long[dues.size()];
        CountDownLatch answered = new CountDownLatch(dues.size());
        SelectorHttpClient.Completion record = (index, status, response, doneNanos) -> {
            outcomes[index] = new Outcome(dues.get(index), doneNanos - dueNanos[index], status);
            answered.countDown();
        };
        try (SelectorHttpClient client = new SelectorHttpClient(positional.get(0), Integer.parseInt(positional.get(1)),
                                                                connections, timeoutMillis * 1_000_000, false, record)) {
            long begin = System.nanoTime() + 20_000_000;
            for (int i = 0; i < dues.size(); i++) {
                dueNanos[i] = begin + dues.get(i);
                long wait = dueNanos[i] - System.nanoTime();
                if (wait > 0) LockSupport.parkNanos(wait);
                client.get(i, queries.get(i).path()); // waits for a free connection, counted in the latency from the due time
            }
            answered.await();
        }
        write(outcomes, out);
        long ok = java.util.Arrays.stream(outcomes).filter(o -> o.status() == 200).count();
        long cpuNanos = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        System.out.printf(Locale.ROOT, "{\"requests\":%d,\"ok\":%d,\"cpu_ms\":%.1f}%n", outcomes.length, ok, cpuNanos / 1e6);
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
