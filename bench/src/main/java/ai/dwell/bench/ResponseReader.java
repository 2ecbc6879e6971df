package ai.dwell.bench;

import java.nio.ByteBuffer;

/**
 * Reads HTTP/1.1 responses from the bytes of one connection as they arrive: the head up to its
 * blank line, then a body of Content-Length bytes or of chunks. It keeps the status, and the body
 * only if asked to (else it is skipped, not copied). One reader per connection, used by one thread.
 */
final class ResponseReader {

    private enum State { HEAD, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_DATA_END, TRAILER }

    private final StringBuilder line = new StringBuilder();
    private final boolean keepBody;
    private byte[] body = new byte[0];
    private int bodyLength;
    private State state = State.HEAD;
    private int status = -1;
    private long remaining;
    private boolean chunked, closes, firstLine = true;

    /** A complete response: its status, whether the server closes the connection after it, and its body if kept. */
    record Response(int status, boolean closes, byte[] body) {

        Response(int status, boolean closes) { this(status, closes, null); }

        @Override public boolean equals(Object o) {
            return o instanceof Response r && r.status == status && r.closes == closes && java.util.Arrays.equals(r.body, body);
        }

        @Override public int hashCode() { return status * 31 + (closes ? 1 : 0); }

        /** Whether the body holds these bytes (false when it was not kept). */
        boolean contains(byte[] pattern) {
            if (body == null) return false;
            outer:
            for (int i = 0; i + pattern.length <= body.length; i++) {
                for (int j = 0; j < pattern.length; j++) if (body[i + j] != pattern[j]) continue outer;
                return true;
            }
            return false;
        }

    }

    ResponseReader() { this(false); }

    ResponseReader(boolean keepBody) { this.keepBody = keepBody; }

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
                    if (keepBody) keep(in, skip);
                    else in.position(in.position() + skip);
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

    private void keep(ByteBuffer in, int length) {
        if (bodyLength + length > body.length) body = java.util.Arrays.copyOf(body, Math.max(2 * body.length, bodyLength + length));
        in.get(body, bodyLength, length);
        bodyLength += length;
    }

    private Response complete() {
        Response response = new Response(status, closes, keepBody ? java.util.Arrays.copyOf(body, bodyLength) : null);
        bodyLength = 0;
        state = State.HEAD;
        status = -1;
        remaining = 0;
        chunked = closes = false;
        firstLine = true;
        return response;
    }

}
