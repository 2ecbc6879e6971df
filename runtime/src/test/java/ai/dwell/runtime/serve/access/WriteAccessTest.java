package ai.dwell.runtime.serve.access;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteAccessTest {

    private static final String TOKEN = "0123456789abcdef-token";

    private static int status(WriteAccess access, String method, String path, String remote, String authorization) {
        return access.check(method, path, remote, authorization).map(WriteAccess.Refusal::status).orElse(200);
    }

    @Test
    void loopbackServesThisMachineOnly() {
        WriteAccess access = WriteAccess.of(null, null, null);
        assertTrue(access.loopbackOnly());
        assertEquals(200, status(access, "POST", "/document/v1/ns/t/docid/x", "127.0.0.1", null));
        assertEquals(200, status(access, "GET", "/search/", "::1", null));
        assertEquals(403, status(access, "GET", "/search/", "192.0.2.7", null));
        assertEquals(403, status(access, "POST", "/document/v1/ns/t/docid/x", "192.0.2.7", "Bearer " + TOKEN));
    }

    @Test
    void boundToAllWritesFromElsewhereNeedTheToken() {
        WriteAccess access = WriteAccess.of("0.0.0.0", null, TOKEN);
        assertFalse(access.loopbackOnly());
        String remote = "192.0.2.7";
        assertEquals(200, status(access, "GET", "/search/", remote, null));
        assertEquals(200, status(access, "GET", "/document/v1/ns/t/docid/x", remote, null));
        assertEquals(401, status(access, "PUT", "/document/v1/ns/t/docid/x", remote, null));
        assertEquals(401, status(access, "DELETE", "/document/v1/ns/t/docid/x", remote, "Basic abc"));
        assertEquals(403, status(access, "POST", "/document/v1/ns/t/docid/x", remote, "Bearer wrong-token-wrong-token"));
        assertEquals(200, status(access, "POST", "/document/v1/ns/t/docid/x", remote, "Bearer " + TOKEN));
        assertEquals(401, status(access, "POST", "/application/v2/tenant/default/prepareandactivate", remote, null));
        assertEquals(401, status(access, "GET", "/reserved-for-internal-use/feedapi", remote, null));
        assertEquals(200, status(access, "POST", "/document/v1/ns/t/docid/x", "127.0.0.1", null));
    }

    @Test
    void boundToAllWithoutATokenOtherMachinesCannotWrite() {
        WriteAccess access = WriteAccess.of("0.0.0.0", null, null);
        assertEquals(Optional.empty(), access.token());
        assertEquals(403, status(access, "POST", "/document/v1/ns/t/docid/x", "192.0.2.7", "Bearer anything-at-all-here"));
        assertEquals(200, status(access, "GET", "/search/", "192.0.2.7", null));
    }

    @Test
    void refusesOtherBindAddressesAndShortTokens() {
        assertThrows(IllegalArgumentException.class, () -> WriteAccess.of("192.0.2.7", null, TOKEN));
        assertThrows(IllegalArgumentException.class, () -> WriteAccess.of("0.0.0.0", null, "short"));
    }

}
