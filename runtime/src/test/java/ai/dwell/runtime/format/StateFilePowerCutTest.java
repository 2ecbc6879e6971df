package ai.dwell.runtime.format;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Power cuts while a flushed state file (a content node's index) is written again. The file operations go through a
 * layer that models what survives a power cut: of a file's bytes, those forced and a part of the rest (none, all, or
 * some), and of the directory, the names as of its last sync (a rename not yet synced is undone). The power goes after
 * each operation of the write in turn (every write of bytes, the force, the rename, the directory sync): the file is
 * then read from what survived, and must be the whole previous state or the whole new one, never damaged or missing.
 * Without the force before the rename it is damaged at the last cut.
 */
public class StateFilePowerCutTest {

    private static final int MAGIC = 0x5354_4154;

    @TempDir
    Path directory;

    @TempDir
    Path images;

    @Test
    void aPowerCutAtAnyPointOfAWriteLeavesTheOldStateOrTheNew() throws IOException {
        Random random = new Random(16);
        byte[] before = body(random, 100_000), after = body(random, 150_000);
        Path file = directory.resolve("comment.index");
        StateFile.write(file, MAGIC, 1, out -> out.writeBytes(before));
        int operations = PowerCutLayer.operationsOf(directory, file, after);
        assertTrue(operations >= 5, "the write is cut after each of its operations (header, body, trailer, force, rename, sync): " + operations);
        int cuts = 0, old = 0;
        for (int cutAfter = 0; cutAfter <= operations; cutAfter++) {
            for (Unforced unforced : Unforced.values()) {
                Path run = Files.createDirectories(directories("run-" + cutAfter + "-" + unforced));
                StateFile.write(run.resolve(file.getFileName()), MAGIC, 1, out -> out.writeBytes(before));
                PowerCutLayer layer = new PowerCutLayer(run, cutAfter, unforced, random);
                try {
                    StateFile.write(layer, run.resolve(file.getFileName()), MAGIC, 2, out -> out.writeBytes(after));
                    if (cutAfter < operations) fail("the write should have been cut after " + cutAfter + " operations");
                }
                catch (PowerCut expected) { }
                Path image = layer.image(directories("image-" + cutAfter + "-" + unforced));
                StateFile.Loaded<byte[]> loaded;
                try {
                    loaded = StateFile.read(image.resolve(file.getFileName()), MAGIC, input -> input.readBytes());
                }
                catch (IOException e) {
                    throw new AssertionError("cut after " + cutAfter + " of " + operations + " operations, " + unforced + " unforced bytes kept: " + e.getMessage(), e);
                }
                if (loaded.serial() == 1) {
                    assertArrayEquals(before, loaded.state());
                    old++;
                }
                else {
                    assertArrayEquals(after, loaded.state());
                }
                if (cutAfter == operations) assertTrue(loaded.serial() == 2, "a write that finished is there whatever was not forced");
                cuts++;
            }
        }
        assertTrue(old > 0 && old < cuts, "both outcomes were seen: " + old + " of " + cuts + " cuts left the old state");
    }

    private Path directories(String name) throws IOException { return Files.createDirectories(images.resolve(name)); }

    private static byte[] body(Random random, int size) {
        byte[] body = new byte[size];
        random.nextBytes(body);
        return body;
    }

    /** How much of what was written but not forced survives a cut. */
    private enum Unforced { NONE, SOME, ALL }

    /** The power went. */
    private static final class PowerCut extends IOException {
        PowerCut() { super("power cut"); }
    }

    /** File operations that count themselves, cut the power after a given number, and know what survives. */
    private static final class PowerCutLayer implements StateFile.FileOperations {

        private final Path directory;
        private final int cutAfter;
        private final Unforced unforced;
        private final Random random;
        private final Map<String, Tracked> durableNames = new HashMap<>(); // as of the last directory sync; absent: as before the write
        private final List<String[]> pendingRenames = new ArrayList<>();
        private final Map<Path, Tracked> files = new HashMap<>();
        private int operations = 0;

        PowerCutLayer(Path directory, int cutAfter, Unforced unforced, Random random) {
            this.directory = directory;
            this.cutAfter = cutAfter;
            this.unforced = unforced;
            this.random = random;
        }

        /** The number of operations of a whole write of this body, counted with a layer that never cuts. */
        static int operationsOf(Path directory, Path file, byte[] body) throws IOException {
            Path scratch = Files.createDirectories(directory.resolve("count"));
            PowerCutLayer counter = new PowerCutLayer(scratch, Integer.MAX_VALUE, Unforced.ALL, new Random(0));
            StateFile.write(counter, scratch.resolve(file.getFileName()), MAGIC, 2, out -> out.writeBytes(body));
            return counter.operations;
        }

        private void operation() throws PowerCut {
            if (operations++ == cutAfter) throw new PowerCut();
        }

        @Override
        public FileChannel create(Path file) throws IOException {
            Tracked tracked = new Tracked(StateFile.FileOperations.FILE_SYSTEM.create(file), file);
            files.put(file, tracked);
            return tracked;
        }

        @Override
        public void rename(Path from, Path to) throws IOException {
            operation();
            if (Files.exists(to)) previous.put(to.getFileName().toString(), Files.readAllBytes(to));
            StateFile.FileOperations.FILE_SYSTEM.rename(from, to);
            Tracked tracked = files.remove(from);
            tracked.path = to;
            files.put(to, tracked);
            pendingRenames.add(new String[] { from.getFileName().toString(), to.getFileName().toString() });
        }

        @Override
        public void syncDirectory(Path directory) throws IOException {
            operation();
            StateFile.FileOperations.FILE_SYSTEM.syncDirectory(directory);
            for (String[] rename : pendingRenames) durableNames.put(rename[1], files.get(this.directory.resolve(rename[1])));
            pendingRenames.clear();
        }

        /**
         * What survives in the directory: each file under its name as of the last sync, with what was forced of it and
         * some of the rest; a name the write never made durable holds what it held before the write (fully durable).
         */
        Path image(Path image) throws IOException {
            try (var names = Files.list(directory)) {
                for (Path path : names.toList()) {
                    String name = path.getFileName().toString();
                    if (StateFile.isTemporary(path) || durableNames.containsKey(name)) continue;
                    if (pendingRenames.stream().anyMatch(rename -> rename[1].equals(name))) continue; // replaced by a rename not synced
                    Files.copy(path, image.resolve(name));
                }
            }
            for (String[] rename : pendingRenames) // the file that the unsynced rename replaced is still there under its name
                Files.write(image.resolve(rename[1]), previous.get(rename[1]));
            for (Map.Entry<String, Tracked> durable : durableNames.entrySet())
                Files.write(image.resolve(durable.getKey()), durable.getValue().surviving());
            return image;
        }

        private final Map<String, byte[]> previous = new HashMap<>(); // a name's content before a rename replaced it

        /** A file being written: its real channel, and how much of it was forced. */
        private final class Tracked extends ForwardingFileChannel {

            Path path;
            long forced = 0;

            Tracked(FileChannel file, Path path) throws IOException {
                super(file);
                this.path = path;
            }

            @Override
            public int write(ByteBuffer source) throws IOException {
                operation();
                return file.write(source);
            }

            @Override
            public void force(boolean metaData) throws IOException {
                operation();
                file.force(metaData);
                forced = file.size();
            }

            byte[] surviving() throws IOException {
                byte[] written = Files.readAllBytes(path);
                long kept = switch (unforced) {
                    case NONE -> forced;
                    case ALL -> written.length;
                    case SOME -> forced + (long) (random.nextDouble() * (written.length - forced + 1));
                };
                return Arrays.copyOf(written, (int) Math.min(kept, written.length));
            }

        }

    }

}
