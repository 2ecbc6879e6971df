package ai.dwell.bench;

import java.nio.ByteBuffer;

/**
 * Reads HTTP/1.1 responses from the bytes of one connection as they arrive, keeping only the status:
 * the head up to its blank line, then a body of Content-Length bytes or of chunks. The body is
 * skipped, not stored. One reader per connection, used by one thread.
 */
final class ResponseReader {

    private enum State { HEAD, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILER }

    private final StringBuilder line = new StringBuilder();
    private State state = State.HEAD;
    private int status = -1;
    private long remaining;
    private boolean chunked, closes, firstLine = true;

    /** A complete response: its status, and whether the server closes the connection after it. */
    record Response(int status, boolean closes) {}

    /**
     * Consumes bytes from the buffer until a response completes (returned, the rest of the buffer
     * left for the next) or the buffer is used up (null).
     */
    Response read(ByteBuffer in) {
        while (in.hasRemaining()) {
            switch (state) {
                case HEAD, CHUNK_SIZE, CHUNK_DATA_END, TRAILER -> {
                    if ( ! readLine(in)) return null;
                    Response done = onLine(line.toString());
                    line.setLength(0);
                    if (done != null) return done;
                }
                case FIXED_BODY, CHUNK_DATA -> {
                    int skip = (int) Math.min(remaining, in.remaining());
                    in.position(in.position() + skip);
                    remaining -= skip;
                    if (remaining == 0) {
                        if (state == State.FIXED_BODY) return complete();
                        state = State.CHUNK_DATA_END;
                    }
                }
            }
        }
        return null;
    }

    /** Reads up to the end of a line (CRLF, dropped): false if the buffer ran out first. */
    private boolean readLine(ByteBuffer in) {
        while (in.hasRemaining()) {
            char c = (char) (in.get() & 0xff);
            if (c == '\n') {
                if ( ! line.isEmpty() && line.charAt(line.length() - 1) == '\r') line.setLength(line.length() - 1);
                return true;
            }
            line.append(c);
        }
        return false;
    }

    private Response onLine(String text) {
        switch (state) {
            case HEAD -> {
                if (firstLine) {
                    if ( ! text.startsWith("HTTP/1.")) throw new IllegalStateException("Not an HTTP/1 status line: " + text);
                    status = Integer.parseInt(text.substring(9, 12));
                    firstLine = false;
                }
                else if ( ! text.isEmpty()) {
                    header(text);
                }
                else if (chunked) {
                    state = State.CHUNK_SIZE;
                }
                else if (remaining > 0) {
                    state = State.FIXED_BODY;
                }
                else {
                    return complete();
                }
            }
            case CHUNK_SIZE -> {
                int extension = text.indexOf(';');
                remaining = Long.parseLong((extension < 0 ? text : text.substring(0, extension)).trim(), 16);
                state = remaining == 0 ? State.TRAILER : State.CHUNK_DATA;
            }
            case CHUNK_DATA_END -> state = State.CHUNK_SIZE;
            case TRAILER -> { if (text.isEmpty()) return complete(); }
            default -> throw new IllegalStateException("No line expected in " + state);
        }
        return null;
    }

    private void header(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) return;
        String name = text.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
        String value = text.substring(colon + 1).trim();
        switch (name) {
            case "content-length" -> remaining = Long.parseLong(value);
            case "transfer-encoding" -> chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
            case "connection" -> closes = value.equalsIgnoreCase("close");
            default -> { }
        }
    }

    private Response complete() {
        Response response = new Response(status, closes);
        state = State.HEAD;
        status = -1;
        remaining = 0;
        chunked = closes = false;
        firstLine = true;
        return response;
    }

}
