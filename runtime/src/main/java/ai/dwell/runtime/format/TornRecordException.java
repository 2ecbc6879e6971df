package ai.dwell.runtime.format;

import java.io.IOException;

/** Thrown by {@link RecordReader} at a torn or corrupt record; everything before {@link #validLength()} is intact. */
public final class TornRecordException extends IOException {

    private final long validLength;
    private final String reason;

    TornRecordException(long validLength, String reason) {
        super(reason + " at offset " + validLength);
        this.validLength = validLength;
        this.reason = reason;
    }

    /** The length of the input up to the end of the last intact record (or what preceded the records). */
    public long validLength() { return validLength; }

    /** What is wrong with the record. */
    public String reason() { return reason; }

}
