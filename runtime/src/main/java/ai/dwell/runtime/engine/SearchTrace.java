package ai.dwell.runtime.engine;

import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Cursor;
import com.yahoo.slime.Slime;

/**
 * What a content node tells about one search when the query asks for a trace (trace.level > 0): each
 * phase with its duration, in the reply's slime_trace, which the container adds to the query's trace
 * as it does proton's.
 */
final class SearchTrace {

    private final Slime slime = new Slime();
    private final Cursor root = slime.setObject();
    private final Cursor traces;
    private final long start;

    SearchTrace(int distributionKey, long startNanos) {
        this.start = startNanos;
        root.setLong("distribution-key", distributionKey);
        traces = root.setArray("traces");
    }

    /** A phase that started at startNanos and ends now. */
    void phase(String documentType, String phase, long startNanos, String detail) {
        duration(documentType, phase, System.nanoTime() - startNanos, detail);
    }

    void duration(String documentType, String phase, long nanos, String detail) {
        Cursor trace = traces.addObject();
        trace.setDouble("timestamp_ms", (System.nanoTime() - start) / 1e6);
        trace.setString("event", phase + (documentType.isEmpty() ? "" : " in " + documentType) + (detail.isEmpty() ? "" : ": " + detail));
        trace.setString("phase", phase);
        trace.setDouble("duration_ms", nanos / 1e6);
    }

    void event(String event) {
        Cursor trace = traces.addObject();
        trace.setDouble("timestamp_ms", (System.nanoTime() - start) / 1e6);
        trace.setString("event", event);
    }

    byte[] finish() {
        root.setDouble("duration_ms", (System.nanoTime() - start) / 1e6);
        return BinaryFormat.encode(slime);
    }

}
