package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiling a program of dwell's profiles logs nothing at WARNING or above. A program is compiled for each clock second
 * a profile folds `now` for, on every node, so a warning per compile fills the log and costs every query: the network's
 * xw_plus_b reduce, compiled on its own, made Vespa's type resolver warn of a null dimension three times per compile.
 */
public class CompileWarningsTest {

    private final List<LogRecord> warnings = new ArrayList<>();
    private final Logger root = Logger.getLogger("");
    private final Handler capture = new Handler() {
        @Override public void publish(LogRecord record) { if (record.getLevel().intValue() >= Level.WARNING.intValue()) warnings.add(record); }
        @Override public void flush() {}
        @Override public void close() {}
    };
    private RankAssets assets;
    private DocumentIndex index;

    @BeforeEach
    void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        index = DwellPackage.emptyCommentIndex(cluster);
        assets = new RankAssets(cluster.schema("comment"), cluster.packageDir());
        root.addHandler(capture);
    }

    @AfterEach
    void tearDown() {
        root.removeHandler(capture);
        assets.close();
    }

    @Test
    void compilingEveryProfileLogsNoWarning() {
        int compiled = 0;
        for (String name : List.of("freshness", "neural", "neural_onnx", "similar")) {
            var profile = assets.profile(name);
            if (profile.isEmpty()) continue;
            for (long now : new long[] { 1_800_000_000L, 1_800_000_001L }) {
                new RankProgram(profile.get(), assets, index, List.of(), new QueryProperties(Map.of("vespa.now", String.valueOf(now)), Map.of()));
                compiled++;
            }
        }
        assertTrue(compiled >= 6, "the network profiles compiled");
        assertEquals(List.of(), warnings.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()).toList());
    }

}
