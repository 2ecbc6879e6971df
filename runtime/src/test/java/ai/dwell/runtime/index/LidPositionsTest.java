package ai.dwell.runtime.index;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The primitive local id → positions map agrees with a HashMap over random puts, overwrites and removes. */
public class LidPositionsTest {

    @Test
    void agreesWithAHashMap() {
        Random random = new Random(7);
        LidPositions positions = new LidPositions();
        Map<Integer, int[]> expected = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            int lid = 1 + random.nextInt(500);
            if (random.nextInt(3) == 0) {
                positions.remove(lid);
                expected.remove(lid);
            }
            else {
                int[] value = { i, i + 1 };
                positions.put(lid, value);
                expected.put(lid, value);
            }
        }
        assertEquals(expected.size(), positions.size());
        for (int lid = 1; lid <= 500; lid++)
            assertArrayEquals(expected.getOrDefault(lid, new int[0]), positions.get(lid), "lid " + lid);
    }

}
