package ai.dwell.searchers;

import com.yahoo.document.Document;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.documentapi.SyncParameters;
import com.yahoo.documentapi.SyncSession;
import com.yahoo.search.schema.RankProfile;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the current {@link RankingModel} of each model profile in memory, re-reading the
 * rankingmodel documents in the background. Queries only read memory: the content cluster
 * is asked once per refresh interval, not once per query.
 */
class RankingModelCache implements AutoCloseable {

    private static final Logger log = Logger.getLogger(RankingModelCache.class.getName());

    private final SyncSession session;
    private final RankingModelReader reader;
    private final Duration readTimeout;
    private final List<RankProfile> profiles;
    private final Map<String, RankingModel> current = new ConcurrentHashMap<>();
    private final Map<String, String> problems = new ConcurrentHashMap<>();
    private final ScheduledExecutorService refresher;

    RankingModelCache(DocumentAccess access, RankingModelReader reader, List<RankProfile> profiles,
                      Duration refreshInterval, Duration readTimeout) {
        this.session = access.createSyncSession(new SyncParameters.Builder().build());
        this.reader = reader;
        this.readTimeout = readTimeout;
        this.profiles = List.copyOf(profiles);
        this.refresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "ranking-model-refresher");
            thread.setDaemon(true);
            return thread;
        });
        refresher.scheduleWithFixedDelay(this::refresh, 0, refreshInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Returns the current model of this profile, or empty (not a model profile, or not read yet). */
    RankingModel get(String profile) { return current.get(profile); }

    /** Returns why the document of this profile was last refused or could not be read, if it was. */
    String problem(String profile) { return problems.get(profile); }

    boolean serves(String profile) {
        return profiles.stream().anyMatch(p -> p.name().equals(profile));
    }

    /** Reads every model document once. Runs in the background; public to tests through the searcher. */
    void refresh() {
        for (RankProfile profile : profiles) {
            try {
                Document document = session.get(reader.documentId(profile.name()), readTimeout);
                if (document == null) {
                    current.put(profile.name(), RankingModel.packaged(profile.name()));
                    problems.put(profile.name(), "no rankingmodel document " + reader.documentId(profile.name()));
                    continue;
                }
                RankingModel model = reader.read(document, profile);
                problems.remove(profile.name());
                // the same model read again is kept as it was, so that every query sends the very same tensor instances
                // (the article-view cache's keys then compare them by identity, not cell by cell)
                if (model.equals(current.get(profile.name()))) continue;
                RankingModel previous = current.put(profile.name(), model);
                if (previous == null || previous.version() != model.version())
                    log.log(Level.INFO, "Rank profile '" + profile.name() + "' now uses model version " + model.version());
            }
            catch (IllegalArgumentException e) { // a document that does not fit: keep serving what we had
                current.putIfAbsent(profile.name(), RankingModel.packaged(profile.name()));
                if ( ! e.getMessage().equals(problems.put(profile.name(), e.getMessage())))
                    log.log(Level.WARNING, "Refusing rankingmodel document: " + e.getMessage());
            }
            catch (RuntimeException e) { // backend unavailable: keep serving what we had, and say so once per problem
                String problem = "could not read model: " + e.getMessage();
                if ( ! problem.equals(problems.put(profile.name(), problem)))
                    log.log(Level.WARNING, "Could not read the model of '" + profile.name() + "'; serving " + describe(current.get(profile.name())), e);
            }
        }
    }

    private static String describe(RankingModel model) {
        return model == null ? "the package's constants" : model.isPackaged() ? "the package's constants" : "model version " + model.version();
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        try {
            refresher.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        session.destroy();
    }

}
