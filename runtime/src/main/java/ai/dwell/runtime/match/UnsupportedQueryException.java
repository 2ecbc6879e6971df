package ai.dwell.runtime.match;

/** A query uses an item or a field in a way this engine does not support; the message names it. */
public class UnsupportedQueryException extends IllegalArgumentException {

    public UnsupportedQueryException(String message) { super(message); }

}
