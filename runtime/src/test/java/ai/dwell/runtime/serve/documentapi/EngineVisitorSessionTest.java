package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.documentapi.AckToken;
import com.yahoo.documentapi.VisitorControlHandler;
import com.yahoo.documentapi.VisitorDataHandler;
import com.yahoo.documentapi.VisitorParameters;
import com.yahoo.messagebus.Message;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A visit is done only once its data handler has acked every document it was given, as with Vespa's visitors
 * (/document/v1's delete and update by selection ack a document once its operation is sent).
 */
class EngineVisitorSessionTest {

    private static final DocumentType ITEM = new DocumentType("item");
    private static final List<Document> DOCUMENTS = IntStream.range(0, 5)
            .mapToObj(i -> new Document(ITEM, new DocumentId("id:test:item::" + i))).toList();

    @Test
    void theVisitIsDoneOnlyWhenEveryDocumentIsAcked() throws Exception {
        List<AckToken> held = new CopyOnWriteArrayList<>();
        VisitorDataHandler holding = new VisitorDataHandler() {
            @Override public void onMessage(Message message, AckToken token) { held.add(token); }
        };
        VisitorControlHandler control = new VisitorControlHandler();
        VisitorParameters parameters = new VisitorParameters("");
        parameters.setLocalDataHandler(holding);
        parameters.setControlHandler(control);
        EngineVisitorSession session = new EngineVisitorSession(backend(), parameters);

        long deadline = System.currentTimeMillis() + 10_000;
        while (held.size() < DOCUMENTS.size() && System.currentTimeMillis() < deadline) Thread.sleep(5);
        assertEquals(DOCUMENTS.size(), held.size(), "every document given to the data handler");
        for (int i = 0; i < held.size() - 1; i++) holding.ack(held.get(i));
        assertFalse(session.waitUntilDone(300), "not done with one document unacked");
        assertFalse(control.isDone());

        holding.ack(held.get(held.size() - 1));
        assertTrue(session.waitUntilDone(10_000));
        assertTrue(control.waitUntilDone(10_000));
        assertEquals(VisitorControlHandler.CompletionCode.SUCCESS, control.getResult().getCode());
        assertTrue(control.getProgress().isFinished());
    }

    @Test
    void aDataHandlerThatAcksAtOnceFinishesTheVisit() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        VisitorDataHandler acking = new VisitorDataHandler() {
            @Override public void onMessage(Message message, AckToken token) {
                seen.add(((com.yahoo.documentapi.messagebus.protocol.PutDocumentMessage) message).getDocumentPut().getId().toString());
                ack(token);
            }
        };
        VisitorControlHandler control = new VisitorControlHandler();
        VisitorParameters parameters = new VisitorParameters("");
        parameters.setLocalDataHandler(acking);
        parameters.setControlHandler(control);
        EngineVisitorSession session = new EngineVisitorSession(backend(), parameters);
        assertTrue(session.waitUntilDone(10_000));
        assertEquals(VisitorControlHandler.CompletionCode.SUCCESS, control.getResult().getCode());
        assertEquals(DOCUMENTS.stream().map(d -> d.getId().toString()).sorted().toList(), seen.stream().sorted().toList());
    }

    private static DocumentBackend backend() {
        return new VisitOnlyBackend((bucketSpace, cluster, consumer) -> DOCUMENTS.forEach(consumer));
    }

}
