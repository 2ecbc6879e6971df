package ai.dwell.runtime.serve.container;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The container can build the handler and spec provider sample-apps' mcp-server-app declares
 * (`ai.vespa.mcp.McpRequestHandler` in container-disc, `com.yahoo.search.mcp.McpSearchSpecProvider` in container-search):
 * their constructors' and methods' types, the MCP SDK's among them, link on the runtime's class path, as in Vespa's
 * container-disc bundle, which embeds the SDK. Before, the deploy failed with
 * "NoClassDefFoundError: io/modelcontextprotocol/spec/McpStatelessServerTransport".
 */
public class McpClassesTest {

    @Test
    void theMcpHandlerAndItsSdkTypesLink() {
        for (String name : new String[] { "ai.vespa.mcp.McpRequestHandler", "ai.vespa.mcp.McpHttpTransport",
                                          "com.yahoo.search.mcp.McpSearchSpecProvider" }) {
            Class<?> type = assertDoesNotThrow(() -> Class.forName(name), name);
            assertDoesNotThrow(type::getDeclaredConstructors, name);
            Method[] methods = assertDoesNotThrow(type::getDeclaredMethods, name);
            assertTrue(methods.length > 0, name);
            Arrays.stream(methods).forEach(method -> assertDoesNotThrow(method::getParameterTypes, method.toString()));
        }
        assertDoesNotThrow(() -> Class.forName("io.modelcontextprotocol.spec.McpStatelessServerTransport"));
    }

}
