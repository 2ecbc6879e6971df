package ai.dwell.searchers;

import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Ranked windows by {@link ArticleViewKey}, each served for at most maxAge after the content cluster produced it.
 * Views of one key that miss at once wait for the first of them to compute the window (one query to the content
 * cluster, not one per view). At most maxEntries windows are kept: expired ones go first, then the oldest.
 * Expired windows are also dropped as the cache is written, at most every maxAge / 4 (they can never be served
 * again): kept until the bound pushed them out, they lived several seconds and were copied by every young collection
 * on the way (a W1 runtime's survivors went from ~35 to ~110 MB, and its pauses from ~35 to 60-80 ms, with the cache on).
 */
final class ArticleWindowCache {

    /** What a lookup found: the window (empty if it could not be cached), and whether this view computed it. */
    record Lookup(Optional<ArticleWindow> window, boolean computed) {}

    private record Entry(long createdNanos, CompletableFuture<Optional<ArticleWindow>> window) {}

    private final Map<ArticleViewKey, Entry> entries = new ConcurrentHashMap<>();
    private final long maxAgeNanos;
    private final int maxEntries;
    private final LongSupplier nanoClock;
    private final java.util.concurrent.atomic.AtomicLong lastPurgeNanos;

    ArticleWindowCache(long maxAgeNanos, int maxEntries, LongSupplier nanoClock) {
        this.maxAgeNanos = maxAgeNanos;
        this.maxEntries = maxEntries;
        this.nanoClock = nanoClock;
        this.lastPurgeNanos = new java.util.concurrent.atomic.AtomicLong(nanoClock.getAsLong());
    }

    /**
     * Returns the window of this key, if one no older than maxAge is cached (or being computed); else computes it
     * with the given function and caches it. The function returns empty for a window that must not be cached
     * (an error, partial coverage); then views waiting for it compute their own.
     */
    Lookup get(ArticleViewKey key, Supplier<Optional<ArticleWindow>> compute) {
        while (true) {
            long now = nanoClock.getAsLong();
            Entry entry = entries.get(key);
            if (entry != null && now - entry.createdNanos() <= maxAgeNanos) {
                Optional<ArticleWindow> window = entry.window().join();
                if (window.isPresent()) return new Lookup(window, false);
                return new Lookup(compute.get(), true);
            }
            Entry mine = new Entry(now, new CompletableFuture<>());
            boolean claimed = entry == null ? entries.putIfAbsent(key, mine) == null : entries.replace(key, entry, mine);
            if ( ! claimed) continue;
            Optional<ArticleWindow> window = Optional.empty();
            try {
                window = compute.get();
                return new Lookup(window, true);
            }
            finally {
                mine.window().complete(window);
                if (window.isEmpty()) entries.remove(key, mine);
                else if (entries.size() > maxEntries) evict();
                else purgeExpired();
            }
        }
    }

    /** The age of a window served now. */
    long ageNanos(ArticleWindow window) { return nanoClock.getAsLong() - window.createdNanos(); }

    long now() { return nanoClock.getAsLong(); }

    int size() { return entries.size(); }

    /** Drops the expired windows, if the last purge was at least maxAge / 4 ago (one thread at a time does it). */
    private void purgeExpired() {
        long now = nanoClock.getAsLong(), last = lastPurgeNanos.get();
        if (now - last < maxAgeNanos / 4 || ! lastPurgeNanos.compareAndSet(last, now)) return;
        entries.entrySet().removeIf(entry -> now - entry.getValue().createdNanos() > maxAgeNanos && entry.getValue().window().isDone());
    }

    private synchronized void evict() {
        long now = nanoClock.getAsLong();
        entries.entrySet().removeIf(entry -> now - entry.getValue().createdNanos() > maxAgeNanos && entry.getValue().window().isDone());
        int excess = entries.size() - maxEntries;
        if (excess <= 0) return;
        entries.entrySet().stream()
               .sorted(Comparator.comparingLong(entry -> entry.getValue().createdNanos()))
               .limit(excess)
               .toList()
               .forEach(entry -> entries.remove(entry.getKey(), entry.getValue()));
    }

}
