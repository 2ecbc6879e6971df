package ai.dwell.bench;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Responses as Jetty sends them, whole and cut at every byte, one after another on a connection. */
class ResponseReaderTest {

    private static final String FIXED = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"a\":\"xyz\"}";
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
    private static final String EMPTY = "HTTP/1.1 503 Service Unavailable\r\nX-Dwell-Overload: the search queue is full\r\nContent-Length: 0\r\n\r\n";
    private static final String CLOSING = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}";

    @Test
    void readsEachKindOfResponseWhole() {
        ResponseReader reader = new ResponseReader();
        assertEquals(new ResponseReader.Response(200, false), reader.read(bytes(FIXED)));
        assertEquals(new ResponseReader.Response(200, false), reader.read(bytes(CHUNKED)));
        assertEquals(new ResponseReader.Response(503, false), reader.read(bytes(EMPTY)));
        assertEquals(new ResponseReader.Response(400, true), reader.read(bytes(CLOSING)));
    }

    @Test
    void readsResponsesCutAtEveryByte() {
        for (String response : new String[] { FIXED, CHUNKED, EMPTY, CLOSING }) {
            for (int cut = 1; cut < response.length(); cut++) {
                ResponseReader reader = new ResponseReader();
                assertNull(reader.read(bytes(response.substring(0, cut))), response + " cut at " + cut);
                ResponseReader.Response read = reader.read(bytes(response.substring(cut)));
                assertEquals(Integer.parseInt(response.substring(9, 12)), read.status(), response + " cut at " + cut);
            }
        }
    }

    @Test
    void leavesTheNextResponseInTheBuffer() {
        ResponseReader reader = new ResponseReader();
        ByteBuffer two = bytes(CHUNKED + EMPTY);
        assertEquals(200, reader.read(two).status());
        assertTrue(two.hasRemaining());
        assertEquals(503, reader.read(two).status());
        assertFalse(two.hasRemaining());
    }

    @Test
    void keepsTheBodyWhenAsked() {
        ResponseReader reader = new ResponseReader(true);
        ResponseReader.Response chunked = reader.read(bytes(CHUNKED));
        assertEquals("hello world", new String(chunked.body(), StandardCharsets.ISO_8859_1));
        assertTrue(chunked.contains("o w".getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(chunked.contains("ow".getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals("{\"a\":\"xyz\"}", new String(reader.read(bytes(FIXED)).body(), StandardCharsets.ISO_8859_1));
        assertEquals(0, reader.read(bytes(EMPTY)).body().length);
        assertFalse(new ResponseReader().read(bytes(FIXED)).contains("a".getBytes(StandardCharsets.ISO_8859_1)), "not kept");
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
    }

}
