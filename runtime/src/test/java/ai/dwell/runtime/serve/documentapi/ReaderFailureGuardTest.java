package ai.dwell.runtime.serve.documentapi;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ReaderFailureGuardTest {

    @Test
    void guardsPathsToOneDocument() {
        assertEquals(Optional.of("dwell:comment"), ReaderFailureGuard.documentTypePath("/document/v1/dwell/comment/docid/c1"));
        assertEquals(Optional.of("dwell:comment"), ReaderFailureGuard.documentTypePath("/document/v1/dwell/comment/docid/a/b/c"));
        assertEquals(Optional.of("ns:music"), ReaderFailureGuard.documentTypePath("/document/v1/ns/music/number/12/x"));
        assertEquals(Optional.of("ns:music"), ReaderFailureGuard.documentTypePath("/document/v1/ns/music/group/g/x"));
    }

    @Test
    void passesOtherPathsOn() {
        assertEquals(Optional.empty(), ReaderFailureGuard.documentTypePath("/document/v1/"));
        assertEquals(Optional.empty(), ReaderFailureGuard.documentTypePath("/document/v1/dwell/comment/docid"));
        assertEquals(Optional.empty(), ReaderFailureGuard.documentTypePath("/document/v1/dwell/comment/nosuchkind/x"));
        assertEquals(Optional.empty(), ReaderFailureGuard.documentTypePath("/document/v1/dw%3Aell/comment/docid/x"));
        assertEquals(Optional.empty(), ReaderFailureGuard.documentTypePath("/search/"));
    }

}
