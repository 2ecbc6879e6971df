package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.SchemaConfigs;
import com.yahoo.vespa.config.search.RankProfilesConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The features proton lists by default for ranking.listFeatures, per field of a schema with each kind of field that
 * decides them (searchlib's blueprints' visitDumpFeatures over proton's index environment): a single-value index field,
 * one a profile makes a filter, an array and a weighted set index field, an index field that is also an attribute,
 * attributes of primitive and other types and struct-field attributes; and the profile properties that set how many
 * terms fieldTermMatch and term list.
 */
public class DefaultDumpFeaturesTest {

    private static final String SCHEMA = """
            schema doc {
                document doc {
                    field title type string { indexing: index }
                    field flag type string {
                        indexing: index
                        rank: filter
                    }
                    field chunks type array<string> { indexing: index }
                    field keys type weightedset<string> { indexing: index }
                    field brand type string { indexing: index | attribute }
                    field year type int { indexing: attribute }
                    field tags type array<string> { indexing: attribute }
                    field vector type tensor<float>(x[2]) { indexing: attribute }
                    field parts type array<part> {
                        struct-field name { indexing: attribute }
                    }
                    struct part {
                        field name type string {}
                    }
                }
                rank-profile plain {}
                rank-profile terms {
                    rank-properties {
                        term.numTerms: 2
                        fieldTermMatch.numTerms: 1
                        fieldTermMatch(title).numTerms: 3
                    }
                }
                rank-profile info {
                    rank-properties {
                        fieldInfo.enable: true
                    }
                }
            }
            """;

    @TempDir static Path tmp;
    private static SchemaConfigs schema;

    @BeforeAll
    static void deploy() throws java.io.IOException {
        schema = DwellPackage.oneNodeCluster(tmp.resolve("app"), SCHEMA).schema("doc");
    }

    private static RankProfile profile(String name) {
        for (RankProfilesConfig.Rankprofile profile : schema.rankProfiles().rankprofile())
            if (profile.name().equals(name)) return new RankProfile(profile);
        throw new AssertionError("no profile " + name);
    }

    private static Set<String> names(String profile) {
        List<String> names = DefaultDumpFeatures.names(schema, profile(profile));
        assertEquals(names.size(), new TreeSet<>(names).size(), "each feature once");
        return new TreeSet<>(names);
    }

    private static Set<String> of(Set<String> names, String prefix) {
        return names.stream().filter(name -> name.startsWith(prefix)).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void perFieldAsProtonsBlueprintsVisitThem() {
        Set<String> names = names("plain");
        // attributeMatch: attributes of a primitive type, not an index field that is also an attribute, not a tensor
        assertEquals(Set.of("attributeMatch(parts.name)", "attributeMatch(tags)", "attributeMatch(year)"),
                     names.stream().filter(n -> n.startsWith("attributeMatch(") && ! n.contains(").")).collect(Collectors.toSet()));
        assertEquals(13, of(names, "attributeMatch(year)").size());
        assertTrue(names.contains("attributeMatch(tags).significance") && names.contains("attributeMatch(tags).importance"));
        // matches: every index field and attribute
        assertEquals(Set.of("matches(brand)", "matches(chunks)", "matches(flag)", "matches(keys)", "matches(parts.name)",
                            "matches(tags)", "matches(title)", "matches(vector)", "matches(year)"), of(names, "matches("));
        // bm25 and fieldTermMatch of terms 0-4: every index field
        assertEquals(Set.of("bm25(brand)", "bm25(chunks)", "bm25(flag)", "bm25(keys)", "bm25(title)"), of(names, "bm25("));
        assertEquals(15, of(names, "fieldTermMatch(flag,").size());
        assertTrue(names.contains("fieldTermMatch(keys,4).weight"));
        // elementCompleteness: index fields that are no filter
        assertEquals(Set.of("brand", "chunks", "keys", "title"),
                     of(names, "elementCompleteness(").stream().map(n -> n.substring(20, n.indexOf(')'))).collect(Collectors.toSet()));
        assertEquals(Set.of("elementCompleteness(title).completeness", "elementCompleteness(title).elementWeight",
                            "elementCompleteness(title).fieldCompleteness", "elementCompleteness(title).queryCompleteness"),
                     of(names, "elementCompleteness(title)"));
        // fieldMatch: single-value index fields, 29 outputs, 5 of a filter; textSimilarity: no filter
        assertEquals(30, of(names, "fieldMatch(title)").size());
        assertEquals(Set.of("fieldMatch(flag)", "fieldMatch(flag).completeness", "fieldMatch(flag).degradedMatches",
                            "fieldMatch(flag).matches", "fieldMatch(flag).queryCompleteness", "fieldMatch(flag).weight"),
                     of(names, "fieldMatch(flag)"));
        assertEquals(30, of(names, "fieldMatch(brand)").size());
        assertTrue(of(names, "fieldMatch(chunks)").isEmpty() && of(names, "fieldMatch(keys)").isEmpty());
        assertEquals(Set.of("brand", "title"),
                     of(names, "textSimilarity(").stream().map(n -> n.substring(15, n.indexOf(')'))).collect(Collectors.toSet()));
        assertEquals(5, of(names, "textSimilarity(title)").size());
        // elementSimilarity: multi-value index fields that are no filter, with the default output only
        assertEquals(Set.of("elementSimilarity(chunks)", "elementSimilarity(keys)"), of(names, "elementSimilarity("));
        // the query-wide ones
        assertTrue(names.containsAll(List.of("firstPhase", "nativeAttributeMatch", "nativeFieldMatch", "nativeProximity",
                                             "nativeRank", "queryTermCount", "term(4).connectedness", "term(0).significance")));
        assertEquals(15, of(names, "term(").size());
        assertEquals(3 * 13 + 9 + 5 + 5 * 15 + 4 * 4 + 2 * 30 + 6 + 2 * 5 + 2 + 6 + 15, names.size(), "nothing else");
    }

    @Test
    void theProfileSetsHowManyTermsAreListed() {
        Set<String> names = names("terms");
        assertEquals(6, of(names, "term(").size());
        assertEquals(9, of(names, "fieldTermMatch(title,").size());
        assertEquals(3, of(names, "fieldTermMatch(chunks,").size());
    }

    @Test
    void fieldInfoIsRefusedByName() {
        UnsupportedFeatureException e = assertThrows(UnsupportedFeatureException.class, () -> names("info"));
        assertTrue(e.getMessage().contains("fieldInfo.enable"), e.getMessage());
    }

}
