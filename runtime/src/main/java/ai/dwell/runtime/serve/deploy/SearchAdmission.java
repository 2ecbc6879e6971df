package ai.dwell.runtime.serve.deploy;

import ai.dwell.runtime.serve.search.SearchWaitGuard;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import java.util.Locale;

/**
 * Bounds the queries the served container admits. How many: Vespa's own mechanism, the search
 * handler's thread pool (services.xml {@code <search><threadpool>}); when all its threads are busy and
 * its queue is full, Vespa's container answers 503 at once. Vespa's default pool (10 threads per core,
 * a queue of 40 per thread: 800 queries on two cores) queues seconds of work on a small machine;
 * the runtime sizes it to what one machine ranks, unless the package sets its own pool. Threads and
 * queue are per core and per thread, as in services.xml: DWELL_SEARCH_THREADS (default 2) and
 * DWELL_SEARCH_QUEUE (default 4). How long: the {@link SearchWaitGuard}, bound to /search/ on the
 * container's port in front of Vespa's handler, refuses a query that waited in that queue longer
 * than DWELL_SEARCH_MAX_WAIT_MS.
 */
final class SearchAdmission {

    static final double THREADS_PER_CORE = parse("DWELL_SEARCH_THREADS", 2.0);
    static final double QUEUE_PER_THREAD = parse("DWELL_SEARCH_QUEUE", 4.0);

    private SearchAdmission() {}

    /**
     * Adds the wait guard in front of the search handler, and the thread pool to the container's
     * search element unless it has a pool; nothing when the container has no search.
     */
    static void addTo(Element container, int port) {
        Element search = directChild(container, "search");
        if (search == null) return;
        Element guard = container.getOwnerDocument().createElement("handler");
        guard.setAttribute("id", SearchWaitGuard.class.getName());
        Element binding = container.getOwnerDocument().createElement("binding");
        binding.setTextContent("http://*:" + port + "/search/*");
        guard.appendChild(binding);
        container.appendChild(guard);
        if (directChild(search, "threadpool") != null) return;
        Element pool = container.getOwnerDocument().createElement("threadpool");
        Element threads = container.getOwnerDocument().createElement("threads");
        threads.setTextContent(format(THREADS_PER_CORE));
        Element queue = container.getOwnerDocument().createElement("queue");
        queue.setTextContent(format(QUEUE_PER_THREAD));
        pool.appendChild(threads);
        pool.appendChild(queue);
        search.appendChild(pool);
    }

    private static Element directChild(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling())
            if (node instanceof Element element && element.getTagName().equals(name)) return element;
        return null;
    }

    private static String format(double value) { return String.format(Locale.ROOT, "%.3f", value); }

    private static double parse(String variable, double fallback) {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) return fallback;
        double parsed = Double.parseDouble(value);
        if (parsed <= 0 && ! variable.endsWith("QUEUE")) throw new IllegalArgumentException(variable + " must be positive");
        return parsed;
    }

}
