package ai.dwell.searchers;

import com.yahoo.component.annotation.Inject;
import com.yahoo.component.chain.dependencies.After;
import com.yahoo.component.chain.dependencies.Before;
import com.yahoo.component.chain.dependencies.Provides;
import com.yahoo.documentapi.DocumentAccess;
import com.yahoo.jdisc.Metric;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.schema.RankProfile;
import com.yahoo.search.schema.Schema;
import com.yahoo.search.schema.SchemaInfo;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.search.searchchain.PhaseNames;
import com.yahoo.tensor.Tensor;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends the live network weights of the query's rank profile with the query.
 *
 * A model profile is one that declares the input query(model_version). Its weights live in the
 * document id:dwell:rankingmodel::&lt;profile&gt;, so feeding a new version changes ranking with
 * no redeploy. Documents are cached and re-read in the background: a new version is used within
 * one refresh interval, and each query takes one cached version whole. Without a (valid) document
 * the profile falls back to the constants in the package, and the query trace says so.
 *
 * The version used is returned in the result's root field model_version (0: the package
 * constants) and passed on in the query property {@link ChainProperties#MODEL_VERSION}. The schema,
 * the document namespace and type, its version field and the version input come from
 * {@link RankingModelConfig} (defaults as above).
 */
@Provides(ChainPhases.MODEL_WEIGHTS)
@After(ChainPhases.ARTICLE_VIEW)
@Before(PhaseNames.BLENDED_RESULT)
public class RankingModelSearcher extends Searcher implements AutoCloseable {

    public static final String VERSION_RESULT_FIELD = "model_version";

    private final String versionInput;
    private final RankingModelCache cache;

    /** The gauge of the model version each model profile is ranked with, with the dimension rankProfile. */
    static final String VERSION_METRIC = "dwell.model.version";

    private final Metric metric;
    private final Map<String, Metric.Context> metricContexts = new ConcurrentHashMap<>();

    public RankingModelSearcher(DocumentAccess access, SchemaInfo schemaInfo, RankingModelConfig config) {
        this(access, schemaInfo, config, null);
    }

    /** @param metric where the model version served is set, per rank profile (null: nowhere) */
    @Inject
    public RankingModelSearcher(DocumentAccess access, SchemaInfo schemaInfo, RankingModelConfig config, Metric metric) {
        this.metric = metric;
        RankingModelReader reader = new RankingModelReader(config);
        this.versionInput = reader.versionInput();
        this.cache = new RankingModelCache(access, reader, modelProfiles(schemaInfo, config.schema(), reader),
                                           Duration.ofMillis(config.refreshIntervalMillis()),
                                           Duration.ofMillis(config.readTimeoutMillis()));
    }

    static List<RankProfile> modelProfiles(SchemaInfo schemaInfo, String schemaName, RankingModelReader reader) {
        Schema schema = schemaInfo.schemas().get(schemaName);
        if (schema == null)
            throw new IllegalArgumentException("RankingModelSearcher: no schema '" + schemaName + "' in this application");
        return schema.rankProfiles().values().stream().filter(reader::isModelProfile).toList();
    }

    @Override
    public Result search(Query query, Execution execution) {
        String profile = query.getRanking().getProfile();
        if ( ! cache.serves(profile)) return execution.search(query);

        long version;
        var explicitVersion = query.getRanking().getFeatures().getDouble(versionInput);
        if (explicitVersion.isPresent()) { // the request brings its own weights, e.g. to evaluate a candidate
            version = (long) explicitVersion.getAsDouble();
            if (query.getTrace().isTraceable(1))
                query.trace("RankingModelSearcher: '" + profile + "' uses the weights in the request, version " + version, 1);
        }
        else {
            RankingModel model = cache.get(profile);
            if (model == null || model.isPackaged()) {
                String why = cache.problem(profile);
                if (query.getTrace().isTraceable(1))
                    query.trace("RankingModelSearcher: '" + profile + "' falls back to the constants in the package" +
                                (why == null ? " (model not read yet)" : ": " + why), 1);
                version = RankingModel.PACKAGE_VERSION;
            }
            else {
                for (Map.Entry<String, Tensor> weight : model.tensors().entrySet())
                    query.getRanking().getFeatures().put(weight.getKey(), weight.getValue());
                query.getRanking().getFeatures().put(versionInput, (double) model.version());
                version = model.version();
                if (query.getTrace().isTraceable(1))
                    query.trace("RankingModelSearcher: '" + profile + "' uses model version " + version, 1);
            }
        }
        ChainProperties.setModelVersion(query, version);
        if (metric != null)
            metric.set(VERSION_METRIC, version, metricContexts.computeIfAbsent(profile, p -> metric.createContext(Map.of("rankProfile", p))));
        Result result = execution.search(query);
        result.hits().setField(VERSION_RESULT_FIELD, version);
        return result;
    }

    /** Re-reads the model documents now. For tests; the background refresh does this continuously. */
    void refresh() { cache.refresh(); }

    @Override
    public void close() { cache.close(); }

    @Override
    public void deconstruct() {
        close();
        super.deconstruct();
    }

}
