package ai.dwell.runtime.serve.configserver;

import java.util.List;

/** What the config server API needs from the runtime. */
public interface Deployments {

    /** A deployed and active application. */
    record Active(long sessionId, List<Service> services, List<String> log, List<ChangeAction> actions) {

        public Active(long sessionId, List<Service> services, List<String> log) { this(sessionId, services, log, List.of()); }

    }

    /**
     * What the last deploy's change needs on a Vespa cluster, as Vespa's change validators found it: type "restart",
     * "refeed" or "reindex"; the cluster; for refeed and reindex the document type and the validation id (name).
     */
    record ChangeAction(String type, String clusterName, String documentType, String name, String message) {}

    /** A service of the active application, as serviceconverge lists it. */
    record Service(String clusterName, String type, String host, int port) {}

    /**
     * Validates, prepares and activates the package in this zip. Returns the new active
     * application; throws InvalidApplicationException (nothing changes) when it is invalid.
     */
    Active deploy(byte[] zip);

    /** The active application, or null when none is deployed. */
    Active active();

    /** Whether a package is being activated (its content loaded and indexed), so the active one does not serve fully yet. */
    default boolean activating() { return false; }

}
