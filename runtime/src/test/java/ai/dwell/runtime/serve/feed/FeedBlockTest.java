package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentRemove;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.update.FieldUpdate;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Vespa's feed block: blocked above the disk limit, unblocked only below the limit less the noise level, described as
 * the cluster controller describes it; sampled at most once an interval. A blocked cluster refuses puts and every
 * update but numeric assigns with NO_SPACE (507), lets removes through, and passes nothing refused on to the store.
 */
public class FeedBlockTest {

    private double usage = 0.5;
    private long now = 0;
    private final FeedBlock block = new FeedBlock("music", List.of(0, 1, 2, 3), "node.local", 0.75, 0.01, () -> usage, () -> now, 100);

    @Test
    void blockedAboveTheLimitUntilBelowItLessTheNoiseLevel() {
        assertEquals(Optional.empty(), block.blocked());
        usage = 0.80;
        assertEquals(Optional.empty(), block.blocked(), "usage is sampled at most every 100 ns");
        now += 100;
        assertEquals(Optional.of("External feed is blocked due to resource exhaustion: in content cluster 'music': " +
                                 "disk on node 0 [node.local] is 80.0% full (the configured limit is 75.0%), " +
                                 "disk on node 1 [node.local] is 80.0% full (the configured limit is 75.0%), " +
                                 "disk on node 2 [node.local] is 80.0% full (the configured limit is 75.0%) (... and 1 more)"),
                     block.blocked());
        usage = 0.745;
        now += 100;
        assertEquals(Optional.of("External feed is blocked due to resource exhaustion: in content cluster 'music': " +
                                 "disk on node 0 [node.local] is 74.5% full (the configured limit is 75.0%, effective limit lowered to 74.0% until feed unblocked), " +
                                 "disk on node 1 [node.local] is 74.5% full (the configured limit is 75.0%, effective limit lowered to 74.0% until feed unblocked), " +
                                 "disk on node 2 [node.local] is 74.5% full (the configured limit is 75.0%, effective limit lowered to 74.0% until feed unblocked) (... and 1 more)"),
                     block.blocked(), "still blocked between the lowered and the configured limit");
        usage = 0.739;
        now += 100;
        assertEquals(Optional.empty(), block.blocked());
        usage = 0.745;
        now += 100;
        assertEquals(Optional.empty(), block.blocked(), "not blocked again below the configured limit");
    }

    @Test
    void aBlockedClusterRefusesPutsAndUpdatesButNumericAssignsAndLetsRemovesThrough() {
        DocumentType song = new DocumentType("music");
        song.addField("title", DataType.STRING);
        song.addField("year", DataType.INT);
        Recording store = new Recording();
        FeedBlockingSink sink = new FeedBlockingSink(store, Map.of("music", block));
        DocumentId id = new DocumentId("id:test:music::1");
        Document document = new Document(song, id);
        document.setFieldValue("title", new StringFieldValue("Bolero"));
        DocumentUpdate assignYear = new DocumentUpdate(song, id).addFieldUpdate(FieldUpdate.createAssign(song.getField("year"), new IntegerFieldValue(1928)));
        DocumentUpdate assignTitle = new DocumentUpdate(song, id).addFieldUpdate(FieldUpdate.createAssign(song.getField("title"), new StringFieldValue("B")));
        DocumentUpdate incrementYear = new DocumentUpdate(song, id).addFieldUpdate(FieldUpdate.createIncrement(song.getField("year"), 1));

        assertEquals(WriteOutcome.Status.OK, sink.put(new DocumentPut(document)).join().status());
        assertEquals(WriteOutcome.Status.OK, sink.update(assignTitle).join().status());
        assertEquals(2, store.writes.size());

        usage = 0.9;
        now += 100;
        WriteOutcome put = sink.put(new DocumentPut(document)).join();
        assertEquals(WriteOutcome.Status.INSUFFICIENT_STORAGE, put.status());
        assertTrue(put.message().startsWith("Put operation rejected for document 'id:test:music::1': ReturnCode(NO_SPACE, External feed is blocked " +
                                            "due to resource exhaustion: in content cluster 'music': disk on node 0 [node.local] is 90.0% full"), put.message());
        assertEquals(WriteOutcome.Status.INSUFFICIENT_STORAGE, sink.update(assignTitle).join().status());
        assertEquals(WriteOutcome.Status.INSUFFICIENT_STORAGE, sink.update(incrementYear).join().status());
        assertEquals(2, store.writes.size(), "nothing refused reaches the store");
        assertEquals(WriteOutcome.Status.OK, sink.update(assignYear).join().status());
        assertEquals(WriteOutcome.Status.OK, sink.remove(new DocumentRemove(id)).join().status());
        assertEquals(List.of("put", "update", "update", "remove"), store.writes);

        DocumentType other = new DocumentType("other");
        assertEquals(WriteOutcome.Status.OK, sink.put(new DocumentPut(new Document(other, new DocumentId("id:test:other::1")))).join().status(),
                     "a type of no blocked cluster is written");
    }

    private static final class Recording implements DocumentSink {

        final List<String> writes = new ArrayList<>();

        @Override public CompletableFuture<WriteOutcome> put(DocumentPut put) { return ok("put"); }
        @Override public CompletableFuture<WriteOutcome> update(DocumentUpdate update) { return ok("update"); }
        @Override public CompletableFuture<WriteOutcome> remove(DocumentRemove remove) { return ok("remove"); }
        @Override public Optional<Document> get(DocumentId id) { return Optional.empty(); }
        @Override public void forEach(Consumer<Document> consumer) { }

        private CompletableFuture<WriteOutcome> ok(String write) {
            writes.add(write);
            return CompletableFuture.completedFuture(WriteOutcome.ok(true));
        }

    }

}
