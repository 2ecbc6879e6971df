package ai.dwell.runtime.storage;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Hands out unique, increasing write timestamps in microseconds since the epoch, as Vespa's content nodes do. */
final class TimestampClock {

    private final Clock clock;
    private final AtomicLong last;

    TimestampClock(Clock clock, long lastIssued) {
        this.clock = clock;
        this.last = new AtomicLong(lastIssued);
    }

    long next() {
        Instant now = clock.instant();
        long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        return last.updateAndGet(previous -> Math.max(previous + 1, micros));
    }

}
