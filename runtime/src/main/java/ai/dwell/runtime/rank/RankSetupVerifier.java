package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.SchemaConfigs;
import com.yahoo.document.DocumentTypeManager;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Deploy-time verification of the rank setup of a content cluster, as vespa-verify-ranksetup does for
 * proton: every rank profile of every schema is compiled the way a query would compile it, without a
 * query, over empty indexes with the schema's real attributes, constants and ONNX models: first and
 * second phase, match and summary features, and with them every function they use. (Like proton, it
 * does not compile a function nothing uses: such a function may take arguments, which only its call
 * sites bind.) Every ONNX model's configured inputs and outputs are checked against the file. This finds
 * what Vespa's Java config model lets through: undefined functions and features (attribute(nosuch)),
 * query inputs used as tensors without being declared, missing constants, ONNX inputs and outputs that
 * the model file does not have or whose types do not match, unsupported match-phase and other result-changing settings ({@link UnsupportedSettings}), and any
 * feature this engine can not compute (so it fails at deploy, not at query time).
 */
public final class RankSetupVerifier {

    private RankSetupVerifier() {}

    /** Returns the problems found, each naming schema and rank profile; empty if the cluster verifies. */
    public static List<String> verify(ContentClusterConfig cluster) {
        Set<String> errors = new LinkedHashSet<>();
        Map<String, DocumentIndex> indexes = indexes(cluster, errors);
        for (SchemaConfigs schema : cluster.schemas().values()) {
            DocumentIndex index = indexes.get(schema.name());
            if (index == null) continue;
            try (RankAssets assets = new RankAssets(schema, cluster.packageDir())) {
                for (OnnxModel model : assets.models().values())
                    verify(model, errors, "schema '" + schema.name() + "', onnx-model '" + model.name() + "': ");
                for (RankProfile profile : assets.profiles().values())
                    verify(profile, assets, index, errors, "schema '" + schema.name() + "', rank profile '" + profile.name() + "': ");
            }
            catch (RuntimeException e) {
                errors.add("schema '" + schema.name() + "': " + e.getMessage());
            }
        }
        return List.copyOf(errors);
    }

    private static Map<String, DocumentIndex> indexes(ContentClusterConfig cluster, Set<String> errors) {
        DocumentTypeManager types = new DocumentTypeManager(cluster.documentManager());
        Map<String, DocumentIndex> indexes = new LinkedHashMap<>();
        for (SchemaConfigs schema : cluster.schemas().values()) {
            try {
                indexes.put(schema.name(), new DocumentIndex(schema, types));
            }
            catch (RuntimeException e) {
                errors.add("schema '" + schema.name() + "': " + e.getMessage());
            }
        }
        for (var index : indexes.entrySet()) {
            try {
                index.getValue().importFrom(indexes);
            }
            catch (RuntimeException e) {
                errors.add("schema '" + index.getKey() + "': " + e.getMessage());
            }
        }
        return indexes;
    }

    private static void verify(OnnxModel model, Set<String> errors, String where) {
        for (String input : model.inputSources().keySet())
            if ( ! model.inputTypes().containsKey(input))
                errors.add(where + "the model file has no input '" + input + "'; it has " + model.inputTypes().keySet());
        for (String output : model.outputs().values())
            if ( ! model.evaluator().getOutputInfo().containsKey(output))
                errors.add(where + "the model file has no output '" + output + "'; it has " + model.evaluator().getOutputInfo().keySet());
    }

    private static void verify(RankProfile profile, RankAssets assets, DocumentIndex index, Set<String> errors, String where) {
        ExpressionCompiler compiler = new ExpressionCompiler(profile, assets, index, List.of(), QueryProperties.none());
        List<Runnable> checks = new ArrayList<>();
        checks.add(() -> compiler.compileFirstPhase(profile.firstPhase()));
        profile.secondPhase().ifPresent(second -> checks.add(() -> compiler.compile(second)));
        for (String feature : profile.matchFeatures()) checks.add(() -> compiler.feature(feature));
        for (String feature : profile.summaryFeatures()) checks.add(() -> compiler.feature(feature));
        checks.add(() -> MatchPhaseSettings.limiter(profile, QueryProperties.none(), index));
        checks.add(() -> UnsupportedSettings.check(profile, QueryProperties.none()));
        checks.add(() -> new NativeRankSetup(profile, index)); // the native rank features' settings, also where no expression uses them
        for (Runnable check : checks) {
            try {
                check.run();
            }
            catch (RuntimeException e) {
                errors.add(where + withoutProfilePrefix(e.getMessage(), profile));
            }
        }
    }

    private static String withoutProfilePrefix(String message, RankProfile profile) {
        String prefix = "Rank profile '" + profile.name() + "': ";
        return message != null && message.startsWith(prefix) ? message.substring(prefix.length()) : String.valueOf(message);
    }

}
