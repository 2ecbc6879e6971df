package ai.dwell.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** What a run's latencies say when a server refuses some requests: refused ones are misses, not fast answers. */
public class LatenciesTest {

    @Test
    void refusedRequestsAreMissesAtEveryTargetAndNotInThePercentiles() {
        Latencies latencies = new Latencies(100);
        for (int i = 1; i <= 8; i++) latencies.add(i * 1000, 200, false); // answered in 1..8 ms
        latencies.add(500, 503, false); // refused at once: as fast as it gets, and no answer
        latencies.add(900, 503, false);
        latencies.failed();            // no response at all

        assertEquals(8, latencies.count(), "answered");
        assertEquals(2, latencies.refused());
        assertEquals(Map.of(200, 8, 503, 2), latencies.statusCodes());
        assertEquals(1.0, latencies.minMillis(), 1e-9, "the refusals' 0.5 ms are not response times");
        assertEquals(8.0, latencies.percentileMillis(100), 1e-9);
        assertEquals(4.0, latencies.percentileMillis(50), 1e-9);
        assertEquals(3 / 11.0, latencies.missRate(50), 1e-9, "2 refused + 1 failed of 11, though every answer came within 50 ms");
        assertEquals(6 / 11.0, latencies.missRate(5), 1e-9, "3 answers slower than 5 ms, + 3 without an answer");
    }

}
