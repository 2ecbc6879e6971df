package ai.dwell.runtime.format;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class StateFileTest {

    private static final int MAGIC = 0x54455354;

    private Path directory;

    /** Values of every kind, arrays long enough to cross the 1 MiB buffer several times. */
    private record State(int i, long l, float f, double d, boolean b, String s, String nothing, byte[] bytes,
                         int[] ints, long[] longs, float[] floats, double[] doubles) {}

    @BeforeEach
    public void createDirectory() throws IOException { directory = Files.createTempDirectory("state-file"); }

    @AfterEach
    public void deleteDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
        }
    }

    @Test
    public void readsBackWhatWasWritten() throws IOException {
        State state = randomState(new Random(1));
        Path file = directory.resolve("node.state");
        long size = StateFile.write(file, MAGIC, 42, output -> write(state, output));
        assertEquals(Files.size(file), size);
        assertFalse(Files.exists(directory.resolve("node.state.tmp")), "no temporary file is left");

        StateFile.Loaded<State> loaded = StateFile.read(file, MAGIC, StateFileTest::read);
        assertEquals(42, loaded.serial());
        State read = loaded.state();
        assertEquals(state.i(), read.i());
        assertEquals(state.l(), read.l());
        assertEquals(state.f(), read.f());
        assertEquals(state.d(), read.d());
        assertEquals(state.b(), read.b());
        assertEquals(state.s(), read.s());
        assertNull(read.nothing());
        assertArrayEquals(state.bytes(), read.bytes());
        assertArrayEquals(state.ints(), read.ints());
        assertArrayEquals(state.longs(), read.longs());
        assertArrayEquals(state.floats(), read.floats());
        assertArrayEquals(state.doubles(), read.doubles());
    }

    @Test
    public void everyFlippedByteIsDetected() throws IOException {
        Path file = directory.resolve("node.state");
        State state = randomState(new Random(2));
        StateFile.write(file, MAGIC, 7, output -> write(state, output));
        byte[] intact = Files.readAllBytes(file);
        Random random = new Random(3);
        for (int trial = 0; trial < 40; trial++) {
            byte[] damaged = intact.clone();
            int position = trial == 0 ? 0 : trial == 1 ? damaged.length - 1 : random.nextInt(damaged.length);
            damaged[position] ^= (byte) (1 << random.nextInt(8));
            Files.write(file, damaged);
            int at = position;
            assertThrows(CorruptStateException.class, () -> StateFile.read(file, MAGIC, StateFileTest::read),
                         "a flipped bit at byte " + at + " of " + damaged.length);
        }
    }

    @Test
    public void aTruncatedFileIsDetected() throws IOException {
        Path file = directory.resolve("node.state");
        State state = randomState(new Random(4));
        StateFile.write(file, MAGIC, 7, output -> write(state, output));
        byte[] intact = Files.readAllBytes(file);
        for (int length : new int[] { 0, 5, 12, 24, intact.length / 2, intact.length - 1 }) {
            Files.write(file, Arrays.copyOf(intact, length));
            assertThrows(CorruptStateException.class, () -> StateFile.read(file, MAGIC, StateFileTest::read), "cut to " + length);
        }
    }

    @Test
    public void anotherFormatIsRefused() throws IOException {
        Path file = directory.resolve("node.state");
        StateFile.write(file, MAGIC, 7, output -> output.writeInt(1));
        CorruptStateException e = assertThrows(CorruptStateException.class, () -> StateFile.read(file, MAGIC + 1, input -> input.readInt()));
        assertTrue(e.getMessage().contains("magic"), e.getMessage());
    }

    @Test
    public void aReaderThatLeavesBytesUnreadFails() throws IOException {
        Path file = directory.resolve("node.state");
        StateFile.write(file, MAGIC, 7, output -> { output.writeInt(1); output.writeInt(2); });
        assertThrows(CorruptStateException.class, () -> StateFile.read(file, MAGIC, input -> input.readInt()));
    }

    @Test
    public void aFailedWriteLeavesThePreviousFile() throws IOException {
        Path file = directory.resolve("node.state");
        StateFile.write(file, MAGIC, 1, output -> output.writeInt(11));
        assertThrows(IllegalStateException.class, () -> StateFile.write(file, MAGIC, 2, output -> {
            output.writeInt(22);
            throw new IllegalStateException("the writer fails");
        }));
        StateFile.Loaded<Integer> loaded = StateFile.read(file, MAGIC, StateInput::readInt);
        assertEquals(1, loaded.serial());
        assertEquals(11, loaded.state());
        assertFalse(Files.exists(directory.resolve("node.state.tmp")));
    }

    private static State randomState(Random random) {
        byte[] bytes = new byte[1 + random.nextInt(3_000_000)];
        random.nextBytes(bytes);
        int[] ints = random.ints(700_001).toArray();
        long[] longs = random.longs(300_003).toArray();
        float[] floats = new float[900_007];
        for (int i = 0; i < floats.length; i++) floats[i] = random.nextFloat();
        double[] doubles = random.doubles(200_001).toArray();
        return new State(random.nextInt(), random.nextLong(), random.nextFloat(), random.nextDouble(), random.nextBoolean(),
                         "héllo, " + random.nextInt(), null, bytes, ints, longs, floats, doubles);
    }

    private static void write(State state, StateOutput output) throws IOException {
        output.writeInt(state.i());
        output.writeLong(state.l());
        output.writeFloat(state.f());
        output.writeDouble(state.d());
        output.writeBoolean(state.b());
        output.writeString(state.s());
        output.writeString(state.nothing());
        output.writeBytes(state.bytes());
        output.writeInt(state.ints().length);
        output.writeInts(state.ints(), 0, state.ints().length);
        output.writeInt(state.longs().length);
        output.writeLongs(state.longs(), 0, state.longs().length);
        output.writeInt(state.floats().length);
        output.writeFloats(state.floats(), 0, state.floats().length);
        output.writeInt(state.doubles().length);
        output.writeDoubles(state.doubles(), 0, state.doubles().length);
    }

    private static State read(StateInput input) throws IOException {
        int i = input.readInt();
        long l = input.readLong();
        float f = input.readFloat();
        double d = input.readDouble();
        boolean b = input.readBoolean();
        String s = input.readString();
        String nothing = input.readString();
        byte[] bytes = input.readBytes();
        int[] ints = new int[input.readLength(4)];
        input.readInts(ints, 0, ints.length);
        long[] longs = new long[input.readLength(8)];
        input.readLongs(longs, 0, longs.length);
        float[] floats = new float[input.readLength(4)];
        input.readFloats(floats, 0, floats.length);
        double[] doubles = new double[input.readLength(8)];
        input.readDoubles(doubles, 0, doubles.length);
        return new State(i, l, f, d, b, s, nothing, bytes, ints, longs, floats, doubles);
    }

}
