package ai.dwell.bench;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Latencies and outcomes of the requests of one run. A request answered with another status than 2xx
 * (a 503 from an overloaded server, say) is refused: counted by status, not among the latencies, and a
 * miss at every SLO target, so a server that refuses fast does not look fast.
 */
final class Latencies {

    private final long[] micros;
    private int count;
    private final Map<Integer, Integer> statusCodes = new TreeMap<>();
    private int zeroHits;
    private int refused;
    private int failures;

    Latencies(int capacity) { micros = new long[capacity]; }

    synchronized void add(long latencyMicros, int status, boolean zeroHit) {
        statusCodes.merge(status, 1, Integer::sum);
        if (status / 100 != 2) {
            refused++;
            return;
        }
        if (count < micros.length) micros[count++] = latencyMicros;
        if (zeroHit) zeroHits++;
    }

    synchronized void failed() { failures++; }

    synchronized int count() { return count; }

    synchronized double percentileMillis(double p) {
        if (count == 0) return Double.NaN;
        long[] sorted = Arrays.copyOf(micros, count);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * count) - 1;
        return sorted[Math.max(0, Math.min(count - 1, index))] / 1000.0;
    }

    synchronized double averageMillis() {
        long sum = 0;
        for (int i = 0; i < count; i++) sum += micros[i];
        return count == 0 ? Double.NaN : sum / 1000.0 / count;
    }

    synchronized double minMillis() { return Arrays.stream(micros, 0, count).min().orElse(0) / 1000.0; }

    synchronized double maxMillis() { return Arrays.stream(micros, 0, count).max().orElse(0) / 1000.0; }

    /** The share of requests not answered within the target: slower ones, refused ones and failed ones. */
    synchronized double missRate(double targetMillis) {
        long slow = Arrays.stream(micros, 0, count).filter(m -> m > targetMillis * 1000).count();
        long total = count + refused + failures;
        return total == 0 ? Double.NaN : (double) (slow + refused + failures) / total;
    }

    synchronized Map<Integer, Integer> statusCodes() { return new TreeMap<>(statusCodes); }

    synchronized int zeroHits() { return zeroHits; }

    /** Requests answered with a status other than 2xx. */
    synchronized int refused() { return refused; }

    synchronized int failures() { return failures; }

}
