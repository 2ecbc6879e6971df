package ai.dwell.runtime.serve.deploy;

/** A package that cannot be deployed, with the reason (Vespa's own message where Vespa found it). */
public class InvalidApplicationException extends RuntimeException {

    public InvalidApplicationException(String message) { super(message); }

    public InvalidApplicationException(String message, Throwable cause) { super(message, cause); }

}
