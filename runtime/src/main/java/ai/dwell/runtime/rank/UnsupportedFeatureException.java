package ai.dwell.runtime.rank;

/** A rank profile or query uses a feature or function this engine cannot compute; the message names it. */
public class UnsupportedFeatureException extends IllegalArgumentException {

    public UnsupportedFeatureException(String message) { super(message); }

}
