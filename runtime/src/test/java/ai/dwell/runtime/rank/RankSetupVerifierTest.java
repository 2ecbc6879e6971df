package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Deploy-time verification of rank setups, on dwell's package and on copies of it with broken profiles. */
public class RankSetupVerifierTest {

    /**
     * Profiles that Vespa's config model accepts, but that could not be ranked with, here or (broken_native:
     * a feature this engine does not compute) not by this engine.
     */
    private static final String BROKEN_PROFILES = """

                rank-profile broken_function inherits features {
                    first-phase { expression: baseline + f_fresness }
                }
                rank-profile broken_native inherits features {
                    first-phase { expression: baseline + flowCompleteness(text).completeness }
                }
                rank-profile broken_onnx inherits features {
                    onnx-model dwell_nn_short {
                        file: models/dwell_nn.onnx
                        input "features": short_features
                        output "score": score
                    }
                    function short_features() {
                        expression: tensor<float>(d0[1],d1[8])(nn_input{x:(d1)})
                    }
                    first-phase { expression: sum(onnx(dwell_nn_short).score) }
                }
                rank-profile broken_onnx_names inherits features {
                    onnx-model dwell_nn_names {
                        file: models/dwell_nn.onnx
                        input "nosuch_input": nn_input
                        output "score": score
                    }
                    first-phase { expression: sum(onnx(dwell_nn_names).score) }
                }
                rank-profile broken_query inherits features {
                    first-phase { expression: sum(xw_plus_b(nn_input, query(undeclared_weights), constant(b_0), x)) }
                }
                rank-profile valid_with_arguments inherits features {
                    function scaled(value, factor) { expression: value * factor }
                    first-phase { expression: scaled(baseline, 2) }
                    summary-features: scaled(f_upvotes, 3)
                }
                rank-profile broken_first_phase inherits features {
                    first-phase { expression: firstPhase + baseline }
                }
                rank-profile valid_first_phase_features inherits neural {
                    match-features: firstPhase
                    summary-features: firstPhase
                }
                rank-profile broken_keep_rank_count inherits features {
                    first-phase {
                        expression: baseline
                        keep-rank-count: 500
                    }
                }
                rank-profile broken_match_phase inherits features {
                    match-phase {
                        attribute: created_at
                        max-hits: 100
                    }
                    diversity {
                        attribute: author_id
                        min-groups: 10
                    }
                }
            }
            """;

    @Test
    void dwellsPackageVerifiesClean() {
        assertEquals(List.of(), RankSetupVerifier.verify(DwellPackage.cluster()));
    }

    @Test
    void brokenProfilesAreReportedByName(@TempDir Path tmp) throws IOException {
        Path copy = brokenCopy(tmp, BROKEN_PROFILES);
        ContentClusterConfig cluster = ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);

        List<String> errors = RankSetupVerifier.verify(cluster);
        errors.forEach(System.out::println);
        assertError(errors, "broken_function", "f_fresness");
        assertError(errors, "broken_native", "flowCompleteness(text).completeness");
        assertError(errors, "broken_onnx", "input 'features'");
        assertError(errors, "broken_query", "query(undeclared_weights) is used as a tensor");
        assertError(errors, "broken_match_phase", "diversity");
        assertError(errors, "broken_keep_rank_count", "keep-rank-count (vespa.hitcollector.arraysize = 500) is not supported");
        assertError(errors, "broken_first_phase", "firstPhase cannot be used in the first-phase expression");
        assertTrue(errors.contains("schema 'comment', onnx-model 'dwell_nn_names': the model file has no input 'nosuch_input'; it has [features]"),
                   errors.toString());
        assertError(errors, "broken_onnx_names", "'features'"); // the config model binds the file's input to a feature of its name
        assertTrue(errors.stream().allMatch(e -> e.startsWith("schema 'comment', rank profile 'broken_") || e.contains("onnx-model 'dwell_nn_names'")),
                   errors.toString());
        assertEquals(9, errors.size(), errors.toString());
    }

    @Test
    void configModelAlreadyRefusesUnknownAttributes(@TempDir Path tmp) throws IOException {
        Path copy = brokenCopy(tmp, """

                    rank-profile broken_attribute inherits features {
                        summary-features: attribute(nosuch)
                    }
                }
                """);
        var e = assertThrows(IllegalStateException.class, () -> DwellPackage.model(copy));
        assertTrue(e.getCause().getMessage().contains("broken_attribute"), e.getCause().getMessage());
    }

    /** A copy of dwell's package with these profiles (and the closing brace) in place of comment.sd's closing brace. */
    private static Path brokenCopy(Path tmp, String profiles) {
        return DwellPackage.copyWithProfiles(tmp, profiles);
    }

    private static void assertError(List<String> errors, String profile, String problem) {
        assertTrue(errors.stream().anyMatch(e -> e.contains("rank profile '" + profile + "'") && e.contains(problem)),
                   "an error for " + profile + " naming " + problem + " in " + errors);
    }

}
