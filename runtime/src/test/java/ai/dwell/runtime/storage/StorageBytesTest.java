package ai.dwell.runtime.storage;

import ai.dwell.runtime.format.FileHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pins the bytes of log segments and snapshots, so that a data directory written by an earlier
 * version still loads: the expected bytes were produced by the code before the framing moved to
 * ai.dwell.runtime.format.
 */
public class StorageBytesTest {

    private static final String SEGMENT =
            "44574c3100000000000000070000001c749786a1000000000000000700060a24181e4001017075742d7061796c6f6164" +
            "00000023fb98a7ef000000000000000800060a24181e40020269643a746573743a636f6d6d656e743a3a31";
    private static final String SNAPSHOT =
            "44575331000000000000002a00000014af9b0b1f000000000000002a00060a24181e400301010203" +
            "000000132bdf9fd7000000000000002a00060a24181e4004010405" +
            "000000196873e5c1000000000000002a0000000000000000030000000000000002";

    private static final byte[] PUT_PAYLOAD = "put-payload".getBytes(StandardCharsets.UTF_8);
    private static final byte[] REMOVE_PAYLOAD = "id:test:comment::1".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path directory;

    @Test
    void segmentBytesAreUnchanged() throws IOException {
        Path segment = directory.resolve("segment");
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            new FileHeader(FileHeader.SEGMENT_MAGIC, 7).write(channel);
            ByteBuffer entries = ByteBuffer.allocate(EntryFormat.encodedSize(PUT_PAYLOAD.length) +
                                                     EntryFormat.encodedSize(REMOVE_PAYLOAD.length));
            EntryFormat.encode(7, 1_700_000_000_000_001L, EntryKind.PUT, PUT_PAYLOAD, entries);
            EntryFormat.encode(8, 1_700_000_000_000_002L, EntryKind.REMOVE, REMOVE_PAYLOAD, entries);
            entries.flip();
            while (entries.hasRemaining()) channel.write(entries);
        }
        assertEquals(SEGMENT, HexFormat.of().formatHex(Files.readAllBytes(segment)));
    }

    @Test
    void segmentWrittenBeforeIsRead() throws IOException {
        Path segment = directory.resolve("segment");
        Files.write(segment, HexFormat.of().parseHex(SEGMENT));
        try (EntryReader reader = new EntryReader(segment)) {
            assertEquals(new FileHeader(FileHeader.SEGMENT_MAGIC, 7), reader.readHeader());
            List<LogEntry> entries = new ArrayList<>();
            for (Optional<LogEntry> next = reader.next(); next.isPresent(); next = reader.next()) entries.add(next.get());
            assertEquals(2, entries.size());
            assertEntry(entries.get(0), 7, 1_700_000_000_000_001L, EntryKind.PUT, PUT_PAYLOAD);
            assertEntry(entries.get(1), 8, 1_700_000_000_000_002L, EntryKind.REMOVE, REMOVE_PAYLOAD);
            assertEquals(SEGMENT.length() / 2, reader.validLength());
        }
    }

    @Test
    void snapshotBytesAreUnchanged() throws IOException {
        try (DataDirectory data = new DataDirectory(directory.resolve("data"))) {
            SnapshotFile.write(data, 42, List.of(new StoredDocument(new byte[] { 1, 2, 3 }, 1_700_000_000_000_003L),
                                                 new StoredDocument(new byte[] { 4, 5 }, 1_700_000_000_000_004L)));
            assertEquals(SNAPSHOT, HexFormat.of().formatHex(Files.readAllBytes(data.snapshot(42))));
        }
    }

    private static void assertEntry(LogEntry entry, long serial, long timestamp, EntryKind kind, byte[] payload) {
        assertEquals(serial, entry.serial());
        assertEquals(timestamp, entry.timestamp());
        assertEquals(kind, entry.kind());
        assertArrayEquals(payload, entry.payload());
    }

}
