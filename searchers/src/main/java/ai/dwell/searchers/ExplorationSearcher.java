package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.jdisc.Metric;
import com.yahoo.processing.request.CompoundName;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.ErrorMessage;
import com.yahoo.search.result.FeatureData;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.searchchain.PhaseNames;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Explores the shown order of article views and hands every impression to the impression log.
 *
 * For the first page of an article view ({@link ChainProperties#articleView}) it checks the
 * exploration settings, asks the content cluster for the best exploration.candidates comments,
 * chooses the shown order with {@link PlackettLuceSampler} (greedy, or with probability
 * exploration.rate a sample at exploration.temperature), and gives the {@link ImpressionLog} one
 * {@link Impression} per view: query id, article, rank profile, model version
 * ({@link ChainProperties#modelVersion}), every candidate with its score and features, and the
 * shown order with its propensities. A request may pass exploration.seed to make the choice
 * reproducible and query_id to name the impression; otherwise a random id is made. Both come back
 * as root fields. Each shown hit gets the fields position, greedy_position (its place in score order, which
 * the greedy choice shows: where it differs from position, exploration moved the hit) and step_propensity.
 */
@Provides(ChainPhases.EXPLORATION)
@After(ChainPhases.MODEL_WEIGHTS)
@Before(PhaseNames.BLENDED_RESULT)
public class ExplorationSearcher extends Searcher implements AutoCloseable {

    public static final CompoundName RATE = CompoundName.from("exploration.rate");
    public static final CompoundName TEMPERATURE = CompoundName.from("exploration.temperature");
    public static final CompoundName CANDIDATES = CompoundName.from("exploration.candidates");
    public static final CompoundName SEED = CompoundName.from("exploration.seed");
    public static final CompoundName QUERY_ID = CompoundName.from("query_id");

    static final int MAX_CANDIDATES = 400;

    private final ImpressionLog impressions;
    private final String idSummary;

    public ExplorationSearcher(ExplorationConfig config) { this(config, null); }

    /** @param metric where the impression log counts what it writes and drops */
    @Inject
    public ExplorationSearcher(ExplorationConfig config, Metric metric) {
        this.impressions = new ImpressionLog(config.impressionLog(), config.queueCapacity(), metric);
        this.idSummary = config.idSummary();
    }

    @Override
    public Result search(Query query, Execution execution) {
        Optional<ArticleView> view = ChainProperties.articleView(query);
        if (view.isEmpty() || query.getOffset() > 0) return execution.search(query);

        PlackettLuceSampler sampler;
        int candidates;
        try {
            sampler = new PlackettLuceSampler(query.properties().getDouble(RATE, 0.0),
                                              query.properties().getDouble(TEMPERATURE, 1.0));
            candidates = query.properties().getInteger(CANDIDATES, 20);
            if (candidates < 1 || candidates > MAX_CANDIDATES)
                throw new IllegalArgumentException("exploration.candidates must be in [1, " + MAX_CANDIDATES + "], was " + candidates);
        }
        catch (IllegalArgumentException e) {
            return new Result(query, ErrorMessage.createBadRequest(e.getMessage()));
        }
        String queryId = query.properties().getString(QUERY_ID, UUID.randomUUID().toString());
        Long seed = query.properties().getLong(SEED);
        SplittableRandom random = seed == null ? new SplittableRandom() : new SplittableRandom(seed);

        int shown = query.getHits();
        query.setHits(Math.max(shown, candidates));
        Result result = execution.search(query);
        if (result.hits().getError() != null) return result;

        List<Hit> ranked = new ArrayList<>();
        for (Hit hit : result.hits())
            if ( ! hit.isMeta() && ! hit.isAuxiliary()) ranked.add(hit);
        ranked.sort((a, b) -> Double.compare(b.getRelevance().getScore(), a.getRelevance().getScore()));
        double[] scores = ranked.stream().mapToDouble(hit -> hit.getRelevance().getScore()).toArray();
        Slate slate = sampler.sample(scores, shown, random);

        for (Hit hit : ranked) result.hits().remove(hit.getId());
        boolean[] isShown = new boolean[ranked.size()];
        for (int position = 0; position < slate.size(); position++) {
            Hit hit = ranked.get(slate.candidate(position));
            isShown[slate.candidate(position)] = true;
            hit.setField("position", position);
            hit.setField("greedy_position", slate.candidate(position));
            hit.setField("step_propensity", slate.stepPropensity(position));
            result.hits().add(hit);
        }
        result.hits().setOrdered(true);
        result.hits().setField("query_id", queryId);
        result.hits().setField("propensity", slate.propensity());
        result.hits().setField("explored", slate.explored());
        query.setHits(shown);

        Optional<ErrorMessage> idError = fillIds(query, ranked, isShown, execution);
        execution.fill(result, query.getPresentation().getSummary());
        if (idError.isPresent()) {
            result.hits().addError(idError.get());
            return result; // an impression without its candidates' ids would not join: none is logged
        }
        impressions.append(impression(query, view.get(), queryId, ranked, slate));
        if (query.getTrace().isTraceable(2))
            query.trace("Exploration: " + slate + " from " + ranked.size() + " candidates", 2);
        return result;
    }

    /**
     * Fills the candidates that are not shown with the id summary class, so that the impression names them: only the
     * shown hits get the view's summary class (its text and attributes), the others only their document ids. A
     * candidate that already holds its id (from the hot-article cache's window) is left as it is. Without an id
     * summary class configured, every candidate is filled with the view's class, as the shown ones.
     */
    private Optional<ErrorMessage> fillIds(Query query, List<Hit> ranked, boolean[] isShown, Execution execution) {
        String idClass = idSummary.isEmpty() ? query.getPresentation().getSummary() : idSummary;
        Result others = new Result(query);
        for (int i = 0; i < ranked.size(); i++)
            if ( ! isShown[i] && ranked.get(i).getField("documentid") == null) others.hits().add(ranked.get(i));
        if (others.hits().size() == 0) return Optional.empty();
        execution.fill(others, idClass);
        if (others.hits().getError() != null) return Optional.of(others.hits().getError());
        for (Hit hit : others.hits())
            if (hit.getField("documentid") == null)
                return Optional.of(ErrorMessage.createBackendCommunicationError("Summary class '" + idClass + "' gave no documentid for " + hit.getId()));
        return Optional.empty();
    }

    private static Impression impression(Query query, ArticleView view, String queryId, List<Hit> ranked, Slate slate) {
        List<Impression.Candidate> candidates = new ArrayList<>(ranked.size());
        for (Hit hit : ranked)
            candidates.add(new Impression.Candidate(documentId(hit), hit.getRelevance().getScore(),
                                                    hit.getField("matchfeatures") instanceof FeatureData features ? features : null));
        return new Impression(queryId, System.currentTimeMillis(), view.article(), query.getRanking().getProfile(),
                              ChainProperties.modelVersion(query),
                              query.properties().getDouble(RATE, 0.0), query.properties().getDouble(TEMPERATURE, 1.0),
                              candidates, slate);
    }

    private static String documentId(Hit hit) {
        Object id = hit.getField("documentid");
        return id != null ? id.toString() : hit.getId().toString();
    }

    ImpressionLog impressionLog() { return impressions; }

    @Override
    public void close() { impressions.close(); }

    @Override
    public void deconstruct() {
        close();
        super.deconstruct();
    }

}
