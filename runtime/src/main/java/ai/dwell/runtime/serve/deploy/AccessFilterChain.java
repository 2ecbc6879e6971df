package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.serve.access.AccessFilter;
import ai.dwell.runtime.serve.container.OwnContainerFilter;
import org.w3c.dom.Element;

/**
 * Puts the runtime's {@link AccessFilter} in front of every request of the served container, as a
 * request filter chain in the working copy's http element (made, with the default server, if the
 * package has none).
 */
final class AccessFilterChain {

    static final String CHAIN = "dwell-access";

    private AccessFilterChain() {}

    static void addTo(Element container, int port) { addTo(container, port, false); }

    /**
     * @param ownContainer whether the container is one of several in the process (several container clusters): then
     *                     the chain first binds each request's thread to its container's instance ({@link OwnContainerFilter})
     */
    static void addTo(Element container, int port, boolean ownContainer) {
        Element http = child(container, "http");
        Element filtering = child(http, "filtering");
        if (http.getElementsByTagName("server").getLength() == 0) { // the default server, which an http element must name
            Element server = container.getOwnerDocument().createElement("server");
            server.setAttribute("id", "default");
            server.setAttribute("port", String.valueOf(port));
            http.appendChild(server);
        }
        Element chain = container.getOwnerDocument().createElement("request-chain");
        chain.setAttribute("id", CHAIN);
        if (ownContainer) {
            Element own = container.getOwnerDocument().createElement("filter");
            own.setAttribute("id", OwnContainerFilter.class.getName());
            chain.appendChild(own);
        }
        Element filter = container.getOwnerDocument().createElement("filter");
        filter.setAttribute("id", AccessFilter.class.getName());
        chain.appendChild(filter);
        Element binding = container.getOwnerDocument().createElement("binding");
        binding.setTextContent("http://*/*");
        chain.appendChild(binding);
        filtering.appendChild(chain);
    }

    /** The element's first direct child of this name, made if there is none. */
    private static Element child(Element parent, String name) {
        for (var node = parent.getFirstChild(); node != null; node = node.getNextSibling())
            if (node instanceof Element element && element.getTagName().equals(name)) return element;
        Element made = parent.getOwnerDocument().createElement(name);
        parent.appendChild(made);
        return made;
    }

}
