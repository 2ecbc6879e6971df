package ai.dwell.runtime.storage;

/**
 * Tuning of a {@link DocumentStore}.
 *
 * @param snapshotEveryEntries the number of log entries after which a snapshot is taken, to bound replay time
 * @param maxBufferedBytes the log bytes that may wait for the next commit before writers are held back
 */
public record StoreOptions(long snapshotEveryEntries, int maxBufferedBytes) {

    public StoreOptions {
        if (snapshotEveryEntries < 1) throw new IllegalArgumentException("snapshotEveryEntries must be positive");
        if (maxBufferedBytes < 1) throw new IllegalArgumentException("maxBufferedBytes must be positive");
    }

    public static StoreOptions defaults() { return new StoreOptions(500_000, 16 << 20); }

    public StoreOptions withSnapshotEveryEntries(long entries) { return new StoreOptions(entries, maxBufferedBytes); }

}
