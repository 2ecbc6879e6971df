package ai.dwell.runtime.serve.feed;

import ai.dwell.runtime.serve.documentapi.WriteOutcome;
import ai.dwell.runtime.storage.Result;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** What the document API makes of each outcome of a store write: a write logged but not applied is an error (500), not a success. */
public class StoreSinkTest {

    @Test
    void eachStoreResultHasItsOutcome() {
        assertEquals(WriteOutcome.ok(true), StoreSink.outcome(Result.ok(true)));
        assertEquals(WriteOutcome.notFound(), StoreSink.outcome(Result.notFound()));
        assertEquals(WriteOutcome.Status.CONDITION_FAILED, StoreSink.outcome(Result.conditionFailed("no")).status());
        assertEquals(WriteOutcome.Status.INVALID_INPUT, StoreSink.outcome(Result.badRequest("bad")).status());
        WriteOutcome notApplied = StoreSink.outcome(Result.notApplied("The write of id:a:b::c is logged, but could not be applied"));
        assertEquals(WriteOutcome.Status.ERROR, notApplied.status());
        assertFalse(notApplied.isSuccess());
        assertEquals("The write of id:a:b::c is logged, but could not be applied", notApplied.message());
    }

}
