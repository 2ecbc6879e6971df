package ai.dwell.page;

import com.yahoo.component.annotation.Inject;
import com.yahoo.container.jdisc.HttpRequest;
import com.yahoo.container.jdisc.HttpResponse;
import com.yahoo.container.jdisc.ThreadedHttpRequestHandler;
import com.yahoo.jdisc.http.HttpRequest.Method;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Serves the comments page at /page/: an article's comments in ranked order, with why each is where
 * it is. The page is static files; what it shows it asks the container's own APIs from the reader's
 * browser (/search/ for the ranked order, /document/v1/ for votes, replies and the live model), so it
 * works wherever the package is deployed. /page redirects to /page/, /page/ is index.html, and the
 * page's other files are served by name; anything else is 404, any method but GET and HEAD 405.
 */
public class CommentsPageHandler extends ThreadedHttpRequestHandler {

    static final String PREFIX = "/page/";

    private final PageAssets assets;

    @Inject
    public CommentsPageHandler(ThreadedHttpRequestHandler.Context context) {
        super(context);
        this.assets = new PageAssets();
    }

    @Override
    public HttpResponse handle(HttpRequest request) {
        Method method = request.getMethod();
        if (method != Method.GET && method != Method.HEAD)
            return new TextResponse(405, "The comments page answers GET and HEAD, not " + method + "\n");
        String path = request.getUri().getPath();
        if (path.equals("/page")) return new RedirectResponse(PREFIX);
        if ( ! path.startsWith(PREFIX)) return notFound(path);
        String name = path.substring(PREFIX.length());
        if (name.isEmpty()) name = "index.html";
        return assets.get(name)
                     .<HttpResponse>map(asset -> new AssetResponse(asset, method == Method.HEAD))
                     .orElseGet(() -> notFound(request.getUri().getPath()));
    }

    private static HttpResponse notFound(String path) {
        return new TextResponse(404, "No such file of the comments page: " + path + "\n");
    }

    /** One of the page's files. */
    private static final class AssetResponse extends HttpResponse {

        private final PageAssets.Asset asset;
        private final boolean headOnly;

        AssetResponse(PageAssets.Asset asset, boolean headOnly) {
            super(200);
            this.asset = asset;
            this.headOnly = headOnly;
            headers().add("Cache-Control", "no-cache");
            headers().add("X-Content-Type-Options", "nosniff");
        }

        @Override
        public String getContentType() { return asset.contentType(); }

        @Override
        public void render(OutputStream out) throws IOException {
            if ( ! headOnly) out.write(asset.bytes());
        }
    }

    /** A short plain-text answer: an error. */
    private static final class TextResponse extends HttpResponse {

        private final byte[] text;

        TextResponse(int status, String text) {
            super(status);
            this.text = text.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String getContentType() { return "text/plain; charset=utf-8"; }

        @Override
        public void render(OutputStream out) throws IOException { out.write(text); }
    }

    /** /page to /page/, so that the page's relative links resolve under it. */
    private static final class RedirectResponse extends HttpResponse {

        RedirectResponse(String location) {
            super(301);
            headers().add("Location", location);
        }

        @Override
        public void render(OutputStream out) { }
    }

}
