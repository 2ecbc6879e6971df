package ai.dwell.runtime.format;

import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The 8-byte beginning of a file of records that has no serial number: a magic number naming the
 * format (int32) and the format's version (int32), big-endian.
 */
public record FormatTag(int magic, int version) {

    public static final int SIZE = 8;

    public void write(DataOutput output) throws IOException {
        output.writeInt(magic);
        output.writeInt(version);
    }

    /** Returns whether the file begins with this tag. */
    public boolean begins(Path file) throws IOException {
        try (DataInputStream input = new DataInputStream(Files.newInputStream(file))) {
            return Files.size(file) >= SIZE && input.readInt() == magic && input.readInt() == version;
        }
    }

}
