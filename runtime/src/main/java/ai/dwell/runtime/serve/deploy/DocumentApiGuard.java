package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.serve.documentapi.ReaderFailureGuard;
import org.w3c.dom.Element;

/**
 * Puts the runtime's {@link ReaderFailureGuard} in front of Vespa's /document/v1 handler in the
 * served working copy: bound to the same path on the container's port, a more specific binding,
 * so JDisc routes /document/v1 requests to it, and it hands each to Vespa's handler.
 */
final class DocumentApiGuard {

    private DocumentApiGuard() {}

    static void addTo(Element container, int port) {
        Element handler = container.getOwnerDocument().createElement("handler");
        handler.setAttribute("id", ReaderFailureGuard.class.getName());
        Element binding = container.getOwnerDocument().createElement("binding");
        binding.setTextContent("http://*:" + port + "/document/v1/*");
        handler.appendChild(binding);
        container.appendChild(handler);
    }

}
