package ai.dwell.runtime.engine;

/**
 * The arrays one thread's ranking works in, kept for its next query: the first-phase scores of every match and the
 * rerank window are as large as the article's matches on the node (tens of thousands at W1), so allocating them per
 * query made the engine most of the young generation's garbage. Arrays only grow; callers use explicit counts, never
 * lengths. Nothing in here outlives the call that filled it: results are copied out.
 */
final class RankScratch {

    private static final ThreadLocal<RankScratch> OF_THREAD = ThreadLocal.withInitial(RankScratch::new);

    private double[] scores = new double[0];
    private int[] hitLids = new int[0];
    private int[] windowLids = new int[0];
    private double[] windowFirst = new double[0];
    private double[] second = new double[0];
    private long[] sample = new long[0];
    private int[] candidates = new int[0];

    /** This thread's scratch. */
    static RankScratch current() { return OF_THREAD.get(); }

    double[] scores(int n) { return scores.length >= n ? scores : (scores = new double[grown(scores.length, n)]); }

    int[] hitLids(int n) { return hitLids.length >= n ? hitLids : (hitLids = new int[grown(hitLids.length, n)]); }

    int[] windowLids(int n) { return windowLids.length >= n ? windowLids : (windowLids = new int[grown(windowLids.length, n)]); }

    double[] windowFirst(int n) { return windowFirst.length >= n ? windowFirst : (windowFirst = new double[grown(windowFirst.length, n)]); }

    double[] second(int n) { return second.length >= n ? second : (second = new double[grown(second.length, n)]); }

    long[] sample(int n) { return sample.length >= n ? sample : (sample = new long[n]); }

    int[] candidates(int n) { return candidates.length >= n ? candidates : (candidates = new int[grown(candidates.length, n)]); }

    /** Keeps a larger candidates array that the caller grew, so that the next query starts from it. */
    void keepCandidates(int[] grown) { if (grown.length > candidates.length) candidates = grown; }

    /** At least n, and at least 1.5 times what was there, so that a slowly growing article does not reallocate each query. */
    private static int grown(int had, int n) { return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(n, had + (had >> 1))); }

}
