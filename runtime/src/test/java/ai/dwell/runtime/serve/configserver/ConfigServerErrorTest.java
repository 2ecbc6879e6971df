package ai.dwell.runtime.serve.configserver;

import ai.dwell.runtime.serve.deploy.InvalidApplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A deploy that fails answers with the failure: 400 for an invalid package, 500 naming the error for anything else
 * (e.g. a container component that cannot be constructed), never an empty reply.
 */
public class ConfigServerErrorTest {

    private ConfigServer server;

    @AfterEach
    void close() { if (server != null) server.close(); }

    @Test
    void aFailedActivationAnswers500WithItsMessage() throws Exception {
        HttpResponse<String> response = deployWith(new IllegalStateException("Error constructing 'tokenizer'"));
        assertEquals(500, response.statusCode(), response.body());
        assertTrue(response.body().contains("Error constructing 'tokenizer'"), response.body());
    }

    @Test
    void anInvalidPackageAnswers400() throws Exception {
        HttpResponse<String> response = deployWith(new InvalidApplicationException("no services.xml"));
        assertEquals(400, response.statusCode(), response.body());
        assertTrue(response.body().contains("no services.xml"), response.body());
    }

    private HttpResponse<String> deployWith(RuntimeException failure) throws IOException, InterruptedException {
        server = new ConfigServer(0, new Deployments() {
            @Override public Active deploy(byte[] zip) { throw failure; }
            @Override public Active active() { return null; }
        });
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/application/v2/tenant/default/prepareandactivate"))
                                         .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] { 'P', 'K' })).build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

}
