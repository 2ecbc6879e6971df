package ai.dwell.runtime.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A file of flushed state, written so that a crash never leaves a half-written file under its name: the body
 * goes to a temporary file, which is fsynced, renamed into place, and the directory fsynced. Layout:
 * <pre>
 * header   {@link FileHeader}: magic (names the format and version), serial (what the state covers)
 * body     what the writer wrote through a {@link StateOutput}
 * trailer  body length (int64), the serial again (int64: the header is not in the checksum) and the CRC32C
 *          of the body (int32), little-endian
 * </pre>
 * Reading checks the header, that the serial in the header and trailer agree, that the body is as long as the trailer says and that its checksum matches;
 * anything else is a {@link CorruptStateException}.
 */
public final class StateFile {

    private static final int TRAILER_SIZE = 20;
    private static final String TEMPORARY_SUFFIX = ".tmp";

    /** Writes a state's body. */
    public interface Writer { void write(StateOutput output) throws IOException; }

    /** Reads a state's body. */
    public interface Reader<T> { T read(StateInput input) throws IOException; }

    /** The file operations a write makes: the file system itself, or, in tests, a layer that models a power cut. */
    public interface FileOperations {

        FileOperations FILE_SYSTEM = new FileOperations() { };

        /** Opens a new file for writing, replacing any there. */
        default FileChannel create(Path file) throws IOException {
            return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        }

        /** Renames the file, replacing any there, atomically. */
        default void rename(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        /** Makes the renames in the directory durable. */
        default void syncDirectory(Path directory) throws IOException {
            try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
                channel.force(true);
            }
        }

    }

    /** A state read from a file, and the serial it covers. */
    public record Loaded<T>(long serial, T state) {}

    private StateFile() {}

    /** Writes the file atomically and durably; returns its size in bytes. */
    public static long write(Path file, int magic, long serial, Writer writer) throws IOException {
        return write(FileOperations.FILE_SYSTEM, file, magic, serial, writer);
    }

    /** Writes the file atomically and durably with these file operations; returns its size in bytes. */
    public static long write(FileOperations files, Path file, int magic, long serial, Writer writer) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + TEMPORARY_SUFFIX);
        long size;
        try (FileChannel channel = files.create(temporary)) {
            new FileHeader(magic, serial).write(channel);
            StateOutput output = new StateOutput(channel);
            writer.write(output);
            long bodySize = output.size();
            ByteBuffer trailer = ByteBuffer.allocate(TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN)
                                           .putLong(bodySize).putLong(serial).putInt(output.checksum()).flip();
            while (trailer.hasRemaining()) channel.write(trailer);
            channel.force(true);
            size = channel.size();
        }
        catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temporary);
            throw e;
        }
        files.rename(temporary, file);
        files.syncDirectory(file.toAbsolutePath().getParent());
        return size;
    }

    /** Reads a file written by {@link #write} with the given magic; throws {@link CorruptStateException} if it is damaged. */
    public static <T> Loaded<T> read(Path file, int magic, Reader<T> reader) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < FileHeader.SIZE + TRAILER_SIZE) throw corrupt(file, "it is " + size + " bytes, too short for a state file");
            ByteBuffer header = read(channel, 0, FileHeader.SIZE, ByteOrder.BIG_ENDIAN);
            int foundMagic = header.getInt();
            long serial = header.getLong();
            if (foundMagic != magic)
                throw corrupt(file, "magic " + Integer.toHexString(foundMagic) + " where " + Integer.toHexString(magic) + " was expected");
            ByteBuffer trailer = read(channel, size - TRAILER_SIZE, TRAILER_SIZE, ByteOrder.LITTLE_ENDIAN);
            long bodySize = trailer.getLong();
            long trailerSerial = trailer.getLong();
            int checksum = trailer.getInt();
            if (trailerSerial != serial)
                throw corrupt(file, "its header says serial " + serial + ", its trailer " + trailerSerial);
            if (bodySize != size - FileHeader.SIZE - TRAILER_SIZE)
                throw corrupt(file, "its trailer says " + bodySize + " bytes of state, the file holds " + (size - FileHeader.SIZE - TRAILER_SIZE));
            channel.position(FileHeader.SIZE);
            StateInput input = new StateInput(channel, bodySize);
            T state;
            try {
                state = reader.read(input);
            }
            catch (CorruptStateException e) {
                throw corrupt(file, e.getMessage());
            }
            catch (RuntimeException e) { // a damaged body may decode to values the reader refuses
                throw corrupt(file, "its state does not decode: " + e);
            }
            if (input.remaining() != 0) throw corrupt(file, input.remaining() + " bytes of state were left unread");
            if (input.checksum() != checksum) throw corrupt(file, "checksum mismatch");
            return new Loaded<>(serial, state);
        }
    }

    /** Removes a temporary file a crash may have left beside the given file. */
    public static void removeTemporary(Path file) throws IOException {
        Files.deleteIfExists(file.resolveSibling(file.getFileName() + TEMPORARY_SUFFIX));
    }

    /** Whether this is the name of a temporary file of a write that did not finish. */
    public static boolean isTemporary(Path file) {
        return file.getFileName().toString().endsWith(TEMPORARY_SUFFIX);
    }

    /** Makes a rename in the directory durable. */
    public static void syncDirectory(Path directory) throws IOException {
        FileOperations.FILE_SYSTEM.syncDirectory(directory);
    }

    private static ByteBuffer read(FileChannel channel, long position, int size, ByteOrder order) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(size).order(order);
        while (buffer.hasRemaining())
            if (channel.read(buffer, position + buffer.position()) < 0) throw new CorruptStateException("unexpected end of file");
        return buffer.flip();
    }

    private static CorruptStateException corrupt(Path file, String reason) {
        return new CorruptStateException("State file " + file + " is damaged: " + reason);
    }

}
