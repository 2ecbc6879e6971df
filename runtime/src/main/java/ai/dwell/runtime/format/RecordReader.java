package ai.dwell.runtime.format;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads {@link Records} from an input of known size, verifying each: it returns the bodies of intact
 * records and throws {@link TornRecordException} at the first one that is torn (its length runs past
 * the end, or is out of the bounds the format allows) or corrupt (its checksum does not match).
 */
public final class RecordReader {

    private final DataInputStream input;
    private final long size;
    private final int minBodyLength;
    private final int maxBodyLength;
    private final String recordName;
    private long position;

    /**
     * @param input the input, positioned at the first record
     * @param position the offset of the first record in the input, for {@link #validLength()}
     * @param size the size of the whole input
     * @param minBodyLength the smallest body a record of this format has
     * @param maxBodyLength the largest body a record of this format may have
     * @param recordName what the format calls a record, for the reason given when one is torn
     */
    public RecordReader(DataInputStream input, long position, long size, int minBodyLength, int maxBodyLength, String recordName) {
        this.input = input;
        this.position = position;
        this.size = size;
        this.minBodyLength = minBodyLength;
        this.maxBodyLength = maxBodyLength;
        this.recordName = recordName;
    }

    /** Returns the body of the next record, or empty at the end of the input. */
    public Optional<byte[]> next() throws IOException {
        if (position == size) return Optional.empty();
        if (size - position < Records.FRAME_SIZE) throw torn("truncated " + recordName + " header");
        int length = input.readInt();
        int checksum = input.readInt();
        if (length < minBodyLength || length > maxBodyLength || length > size - position - Records.FRAME_SIZE)
            throw torn(recordName + " length " + length + " runs past the end of the file");
        byte[] body = new byte[length];
        input.readFully(body);
        if (Records.checksum(body, 0, length) != checksum) throw torn("checksum mismatch");
        position += Records.framedSize(length);
        return Optional.of(body);
    }

    /** The length of the input up to the end of the last record read successfully. */
    public long validLength() { return position; }

    private TornRecordException torn(String reason) {
        return new TornRecordException(position, reason);
    }

}
