package ai.dwell.runtime.serve.documentapi;

import com.fasterxml.jackson.core.JsonFactory;
import com.yahoo.component.annotation.Inject;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.config.DocumentmanagerConfig;
import com.yahoo.document.json.DocumentOperationType;
import com.yahoo.document.json.JsonReader;
import com.yahoo.document.restapi.resource.DocumentV1ApiHandler;
import com.yahoo.jdisc.Request;
import com.yahoo.jdisc.Response;
import com.yahoo.jdisc.handler.AbstractRequestHandler;
import com.yahoo.jdisc.handler.CompletionHandler;
import com.yahoo.jdisc.handler.ContentChannel;
import com.yahoo.jdisc.handler.ResponseHandler;
import com.yahoo.jdisc.http.HttpRequest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

/**
 * In front of Vespa's /document/v1 handler: a document operation that Vespa's JSON reader fails on
 * with anything but IllegalArgumentException (e.g. an IndexOutOfBoundsException for a dense
 * tensor cell outside its type, an IllegalStateException for "add" to a number) is answered 500
 * by the handler, as a server error. It is the request that is wrong, and nothing was written
 * (the reader fails before the operation is sent). This guard passes every request on unchanged,
 * keeps a copy of a put's or update's body, and when the handler answers 500 it reads the copy
 * again with the same reader: if the reader fails in the same way, the answer is 400 with the
 * reader's message; any other 500 passes through.
 */
public class ReaderFailureGuard extends AbstractRequestHandler {

    /** Bodies larger than this are not kept (Vespa's handler refuses them, 413, from 128 MiB on). */
    static final int MAX_KEPT_BYTES = 128 * 1024 * 1024;

    private final DocumentV1ApiHandler handler;
    private final DocumentTypeManager types;
    private final JsonFactory json = new JsonFactory();

    @Inject
    public ReaderFailureGuard(DocumentV1ApiHandler handler, DocumentmanagerConfig documents) {
        this.handler = handler;
        this.types = new DocumentTypeManager(documents);
    }

    @Override
    public ContentChannel handleRequest(Request request, ResponseHandler responseHandler) {
        HttpRequest http = (HttpRequest) request;
        Optional<DocumentOperationType> operation = switch (http.getMethod()) {
            case POST -> Optional.of(DocumentOperationType.PUT);
            case PUT -> Optional.of(DocumentOperationType.UPDATE);
            default -> Optional.empty();
        };
        Optional<String> documentType = documentTypePath(http.getUri().getRawPath());
        if (operation.isEmpty() || documentType.isEmpty()) return handler.handleRequest(request, responseHandler);

        KeptBody body = new KeptBody();
        String path = http.getUri().getRawPath();
        ResponseHandler guarded = response -> {
            if (response.getStatus() != Response.Status.INTERNAL_SERVER_ERROR) return responseHandler.handleResponse(response);
            Optional<String> failure = readerFailure(body, operation.get(), documentType.get());
            if (failure.isEmpty()) return responseHandler.handleResponse(response);
            badRequest(responseHandler, path, failure.get());
            return DISCARD;
        };
        return new KeepingChannel(handler.handleRequest(request, guarded), body);
    }

    @Override
    public void handleTimeout(Request request, ResponseHandler responseHandler) {
        handler.handleTimeout(request, responseHandler);
    }

    /** The reader's failure on this body, when it is not an IllegalArgumentException (which the handler answers 400 itself). */
    private Optional<String> readerFailure(KeptBody body, DocumentOperationType operation, String documentType) {
        if (body.overflowed) return Optional.empty();
        try {
            new JsonReader(types, new ByteArrayInputStream(body.bytes.toByteArray()), json)
                    .readSingleDocumentStreaming(operation, "id:" + documentType + "::guard");
            return Optional.empty();
        }
        catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        catch (RuntimeException e) {
            return Optional.of("Invalid document operation: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** "namespace:type" for a path to one document (docid, number or group), else empty. */
    static Optional<String> documentTypePath(String rawPath) {
        String[] segments = rawPath.split("/", -1);
        // "", "document", "v1", namespace, type, docid|number|group, ...
        if (segments.length < 7 || ! "document".equals(segments[1]) || ! "v1".equals(segments[2])) return Optional.empty();
        if ( ! Set.of("docid", "number", "group").contains(segments[5])) return Optional.empty();
        String namespace = decode(segments[3]), type = decode(segments[4]);
        if (namespace.isEmpty() || type.isEmpty() || namespace.contains(":") || type.contains(":")) return Optional.empty();
        return Optional.of(namespace + ":" + type);
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static void badRequest(ResponseHandler responseHandler, String path, String message) {
        Response response = new Response(Response.Status.BAD_REQUEST);
        response.headers().add("Content-Type", "application/json;charset=utf-8");
        String body = "{\"pathId\":" + quote(path) + ",\"message\":" + quote(message) + "}";
        ContentChannel out = responseHandler.handleResponse(response);
        out.write(ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), null);
        out.close(null);
    }

    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) quoted.append(String.format("\\u%04x", (int) c));
                    else quoted.append(c);
                }
            }
        }
        return quoted.append('"').toString();
    }

    /** A copy of the request body, up to MAX_KEPT_BYTES. */
    private static final class KeptBody {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile boolean overflowed = false;

        synchronized void keep(ByteBuffer buffer) {
            if (overflowed) return;
            if (bytes.size() + buffer.remaining() > MAX_KEPT_BYTES) {
                overflowed = true;
                bytes.reset();
                return;
            }
            ByteBuffer view = buffer.duplicate();
            byte[] chunk = new byte[view.remaining()];
            view.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }
    }

    /** Passes the body on to the handler, keeping a copy. */
    private record KeepingChannel(ContentChannel delegate, KeptBody body) implements ContentChannel {
        @Override public void write(ByteBuffer buffer, CompletionHandler completion) {
            body.keep(buffer);
            delegate.write(buffer, completion);
        }
        @Override public void close(CompletionHandler completion) { delegate.close(completion); }
        @Override public void onError(Throwable error) { delegate.onError(error); }
    }

    /** Swallows the handler's own 500 body once the guard has answered 400. */
    private static final ContentChannel DISCARD = new ContentChannel() {
        @Override public void write(ByteBuffer buffer, CompletionHandler completion) { if (completion != null) completion.completed(); }
        @Override public void close(CompletionHandler completion) { if (completion != null) completion.completed(); }
    };

}
