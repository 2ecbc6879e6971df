package ai.dwell.runtime.format;

import java.io.IOException;

/** Flushed state that cannot be what was written: a length past its end, a wrong checksum, a foreign header. */
public class CorruptStateException extends IOException {

    public CorruptStateException(String message) { super(message); }

}
