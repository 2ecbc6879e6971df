package ai.dwell.runtime.storage;

import java.io.IOException;
import java.nio.file.Path;

/** Thrown when an entry is torn or corrupt; everything before {@link #validLength()} is intact. */
final class CorruptEntryException extends IOException {

    private final long validLength;

    CorruptEntryException(Path file, long validLength, String reason) {
        super("Corrupt entry in " + file + " at offset " + validLength + ": " + reason);
        this.validLength = validLength;
    }

    long validLength() { return validLength; }

}
