package ai.dwell.page;

import com.yahoo.container.jdisc.HttpRequest;
import com.yahoo.container.jdisc.HttpResponse;
import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;
import com.yahoo.jdisc.http.HttpRequest.Method;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommentsPageHandlerTest {

    private CommentsPageHandler handler;

    @BeforeEach
    void createHandler() {
        handler = new CommentsPageHandler(ThreadedHttpRequestHandler.testContext());
    }

    @Test
    void servesThePageAndItsFilesWithTheirTypes() throws IOException {
        assertFile("/page/", "index.html", "text/html");
        assertFile("/page/?article=a1&ranking=freshness", "index.html", "text/html");
        assertFile("/page/page.js", "page.js", "text/javascript");
        assertFile("/page/page.css", "page.css", "text/css");
    }

    @Test
    void theBarePathRedirectsUnderIt() {
        HttpResponse response = handle("/page", Method.GET);
        assertEquals(301, response.getStatus());
        assertEquals("/page/", response.headers().getFirst("Location"));
    }

    @Test
    void otherPathsAreNotFoundAndWritesAreNotAllowed() throws IOException {
        for (String path : new String[] { "/page/missing.js", "/page/../services.xml", "/page/dwell-page/page.js", "/pages/" }) {
            HttpResponse response = handle(path, Method.GET);
            assertEquals(404, response.getStatus(), path);
            assertTrue(body(response).startsWith("No such file of the comments page"), path);
        }
        for (Method method : new Method[] { Method.POST, Method.PUT, Method.DELETE }) {
            HttpResponse response = handle("/page/", method);
            assertEquals(405, response.getStatus(), method.name());
            assertTrue(body(response).contains(method.name()));
        }
    }

    @Test
    void headHasNoBody() throws IOException {
        HttpResponse response = handle("/page/page.js", Method.HEAD);
        assertEquals(200, response.getStatus());
        assertEquals("", body(response));
    }

    private void assertFile(String uri, String name, String contentType) throws IOException {
        HttpResponse response = handle(uri, Method.GET);
        assertEquals(200, response.getStatus(), uri);
        assertEquals(contentType, response.getContentType(), uri);
        assertEquals("no-cache", response.headers().getFirst("Cache-Control"));
        assertEquals("UTF-8", response.getCharacterEncoding());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        response.render(out);
        assertArrayEquals(resource(name), out.toByteArray(), uri);
    }

    private HttpResponse handle(String path, Method method) {
        return handler.handle(HttpRequest.createTestRequest("http://localhost:8080" + path, method));
    }

    private static String body(HttpResponse response) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        response.render(out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = CommentsPageHandlerTest.class.getClassLoader().getResourceAsStream("dwell-page/" + name)) {
            return in.readAllBytes();
        }
    }

}
