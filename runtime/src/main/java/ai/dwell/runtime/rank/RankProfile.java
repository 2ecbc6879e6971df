package ai.dwell.runtime.rank;

import com.yahoo.searchlib.rankingexpression.RankingExpression;
import com.yahoo.searchlib.rankingexpression.parser.ParseException;
import com.yahoo.searchlib.rankingexpression.rule.ExpressionNode;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.RankProfilesConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A rank profile as proton reads it from RankProfilesConfig properties: the phases
 * (vespa.rank.firstphase / secondphase), functions (rankingExpression(name).rankingScript, parsed once),
 * rerank count (vespa.hitcollector.heapsize), match and summary features, feature renames,
 * query input types (vespa.type.query.*) and defaults (query(name)), and other properties.
 */
public final class RankProfile {

    /** Vespa's default rerank count when a profile has a second phase and sets none. */
    static final int DEFAULT_RERANK_COUNT = 100;

    private final String name;
    private final Map<String, String> properties = new HashMap<>();
    private final Map<String, ExpressionNode> functions = new LinkedHashMap<>();
    private final List<String> matchFeatures = new ArrayList<>();
    private final List<String> summaryFeatures = new ArrayList<>();
    private final List<String> dumpFeatures = new ArrayList<>();
    private final Map<String, String> renames = new HashMap<>();
    private final Map<String, TensorType> queryTypes = new HashMap<>();
    private final ExpressionNode firstPhase;
    private final ExpressionNode secondPhase;
    private volatile NativeRankSetup nativeRankSetup; // made when first needed, for the schema it was made for

    public RankProfile(RankProfilesConfig.Rankprofile config) {
        this.name = config.name();
        String renameFrom = null;
        for (RankProfilesConfig.Rankprofile.Fef.Property property : config.fef().property()) {
            String key = property.name(), value = property.value();
            if (key.startsWith("rankingExpression(") && key.endsWith(").rankingScript"))
                functions.put(key.substring("rankingExpression(".length(), key.length() - ").rankingScript".length()), parse(key, value));
            else if (key.equals("vespa.match.feature")) matchFeatures.add(value);
            else if (key.equals("vespa.summary.feature")) summaryFeatures.add(value);
            else if (key.equals("vespa.dump.feature")) dumpFeatures.add(value);
            else if (key.equals("vespa.feature.rename")) {
                if (renameFrom == null) renameFrom = value;
                else { renames.put(renameFrom, value); renameFrom = null; }
            }
            else if (key.startsWith("vespa.type.query.")) queryTypes.put(key.substring("vespa.type.query.".length()), TensorType.fromSpec(value));
            else properties.put(key, value);
        }
        firstPhase = parse("vespa.rank.firstphase", properties.getOrDefault("vespa.rank.firstphase", "nativeRank"));
        secondPhase = properties.containsKey("vespa.rank.secondphase") ? parse("vespa.rank.secondphase", properties.get("vespa.rank.secondphase")) : null;
    }

    public String name() { return name; }
    public ExpressionNode firstPhase() { return firstPhase; }
    public Optional<ExpressionNode> secondPhase() { return Optional.ofNullable(secondPhase); }
    public Map<String, ExpressionNode> functions() { return functions; }
    public List<String> matchFeatures() { return matchFeatures; }
    public List<String> summaryFeatures() { return summaryFeatures; }
    /** The profile's rank-features: what ranking.listFeatures puts in the rankfeatures summary field. */
    public List<String> dumpFeatures() { return dumpFeatures; }
    /**
     * Whether the profile sets ignore-default-rank-features: ranking.listFeatures then lists only its rank-features;
     * else proton adds its default set (fieldMatch, nativeRank and more, of every field).
     */
    public boolean ignoresDefaultDumpFeatures() { return "true".equals(properties.get("vespa.dump.ignoredefaultfeatures")); }
    /** The name a feature is presented under (match-features: nn_input for rankingExpression(nn_input)). */
    public String presentedName(String feature) { return renames.getOrDefault(feature, feature); }
    public Optional<TensorType> queryType(String name) { return Optional.ofNullable(queryTypes.get(name)); }
    public Map<String, TensorType> queryTypes() { return queryTypes; }
    public Optional<String> property(String name) { return Optional.ofNullable(properties.get(name)); }

    /** The names of the profile's other rank properties (those not read into phases, functions, features and inputs). */
    public java.util.Set<String> propertyNames() { return java.util.Collections.unmodifiableSet(properties.keySet()); }

    /** The settings of the native rank features of this profile over the index (made once, and again for another schema). */
    NativeRankSetup nativeRankSetup(ai.dwell.runtime.index.DocumentIndex index) {
        NativeRankSetup setup = nativeRankSetup;
        if (setup == null || ! setup.isFor(index)) nativeRankSetup = setup = new NativeRankSetup(this, index);
        return setup;
    }

    /** How many of the best first-phase hits get a second-phase score. */
    public int rerankCount() {
        return property("vespa.hitcollector.heapsize").map(Integer::parseInt).orElse(DEFAULT_RERANK_COUNT);
    }

    static ExpressionNode parse(String where, String expression) {
        try {
            return new RankingExpression(expression).getRoot();
        }
        catch (ParseException e) {
            throw new IllegalArgumentException("Could not parse " + where + ": " + expression, e);
        }
    }

}
