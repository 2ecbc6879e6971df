package ai.dwell.runtime.rank;

/**
 * proton's random feature (searchlib RandomExecutor): random (random.out) draws the next number of a
 * lrand48 sequence for each document ranked, in [0, 1>, seeded with the profile's random.seed, or the clock
 * when that is 0 or not set, again for each phase a thread runs (proton makes an executor per rank program);
 * random.match is the first number of the sequence seeded with random.match.seed (default 1024) plus the local
 * document id, the same for a document and query every time it is asked for.
 */
final class RandomNode extends ScalarNode {

    private static final long MULTIPLIER = 0x5DEECE66DL, ADDEND = 0xBL, MASK = (1L << 48) - 1;
    private static final double TWO_TO_31 = 0x80000000L;

    private final long seed;
    private final long matchSeed;
    private final boolean match;
    private long state;

    private RandomNode(long seed, long matchSeed, boolean match) {
        this.seed = seed;
        this.matchSeed = matchSeed;
        this.match = match;
        restart();
    }

    /** random and random.out: the sequence. */
    static RandomNode sequence(long seed) { return new RandomNode(seed, 0, false); }

    /** random.match: stable per document and query. */
    static RandomNode perMatch(long matchSeed) { return new RandomNode(0, matchSeed, true); }

    /** Starts the sequence again, as a new executor: from the seed, or a new one from the clock. */
    void restart() {
        long start = seed != 0 ? seed : System.currentTimeMillis() * 1000 + (System.nanoTime() / 1000) % 1000 ^ System.identityHashCode(this);
        state = seeded(start);
    }

    @Override
    double number(int lid) {
        if (match) return draw(next(seeded(matchSeed + lid)));
        state = next(state);
        return draw(state);
    }

    /** vespalib's Rand48::srand48: the low 32 bits of the seed above 0x330e. */
    static long seeded(long seed) { return ((seed & 0xffffffffL) << 16) + 0x330eL; }

    static long next(long state) { return (MULTIPLIER * state + ADDEND) & MASK; }

    /** lrand48() / 2^31. */
    static double draw(long state) { return (state >>> 17) / TWO_TO_31; }

}
