package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.SchemaConfigs;
import com.yahoo.vespa.config.search.AttributesConfig;
import com.yahoo.vespa.config.search.IndexschemaConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rank features proton lists for ranking.listFeatures by default (unless the profile sets
 * ignore-default-rank-features): what each of searchlib's feature blueprints visits as its dump features, over the
 * fields of proton's index environment for the schema. Those fields are the attributes (imported ones included) and the
 * index fields, an index field taking the place of an attribute of the same name; each field's collection type, an
 * attribute's data type, and whether the profile makes an index field a filter (vespa.isfilterfield.field) decide what
 * is listed:
 * <ul>
 *   <li>every attribute of a primitive type (numbers, bool, string): attributeMatch(name) and its twelve outputs;</li>
 *   <li>every index field and attribute: matches(name);</li>
 *   <li>every index field: bm25(name); fieldTermMatch(name,n).firstPosition, .occurrences and .weight for n below
 *       fieldTermMatch(name).numTerms (else fieldTermMatch.numTerms.name, else fieldTermMatch.numTerms, else 5); and,
 *       unless it is a filter, elementCompleteness(name)'s four outputs;</li>
 *   <li>every single-value index field: fieldMatch(name) and its outputs (29; 5 of a filter) and, unless a filter,
 *       textSimilarity(name)'s five outputs;</li>
 *   <li>every multi-value index field that is not a filter: elementSimilarity(name) and the other outputs the profile
 *       defines for it;</li>
 *   <li>firstPhase, nativeAttributeMatch, nativeFieldMatch, nativeProximity, nativeRank, queryTermCount, and
 *       term(n).connectedness, .significance and .weight for n below term.numTerms (5).</li>
 * </ul>
 * fieldInfo's dump features (listed only when the profile sets fieldInfo.enable) are refused: the feature is not computed
 * by this engine. Proton orders the features by name.
 */
public final class DefaultDumpFeatures {

    private DefaultDumpFeatures() {}

    private static final Set<String> PRIMITIVE_TYPES = Set.of("BOOL", "UINT2", "UINT4", "INT8", "INT16", "INT32", "INT64",
                                                              "FLOAT", "DOUBLE", "STRING");

    private static final List<String> ATTRIBUTE_MATCH_OUTPUTS = List.of(
            "completeness", "queryCompleteness", "fieldCompleteness", "normalizedWeight", "normalizedWeightedWeight", "weight",
            "significance", "importance", "matches", "totalWeight", "averageWeight", "maxWeight");

    private static final List<String> FIELD_MATCH_OUTPUTS = List.of(
            "proximity", "completeness", "queryCompleteness", "fieldCompleteness", "orderness", "relatedness", "earliness",
            "longestSequenceRatio", "segmentProximity", "unweightedProximity", "absoluteProximity", "occurrence",
            "absoluteOccurrence", "weightedOccurrence", "weightedAbsoluteOccurrence", "significantOccurrence", "weight",
            "significance", "importance", "segments", "matches", "outOfOrder", "gaps", "gapLength", "longestSequence", "head",
            "tail", "segmentDistance", "degradedMatches");

    private static final List<String> FILTER_FIELD_MATCH_OUTPUTS = List.of(
            "completeness", "queryCompleteness", "weight", "matches", "degradedMatches");

    private static final List<String> ELEMENT_COMPLETENESS_OUTPUTS = List.of(
            "completeness", "fieldCompleteness", "queryCompleteness", "elementWeight");

    private static final List<String> TEXT_SIMILARITY_OUTPUTS = List.of(
            "score", "proximity", "order", "queryCoverage", "fieldCoverage");

    /** A field of proton's index environment: whether an index field (else an attribute), its collection and data type. */
    private record Field(String name, boolean index, String collection, String dataType) {}

    /** The names of the features proton lists by default for this schema and profile, in no particular order. */
    public static List<String> names(SchemaConfigs schema, RankProfile profile) {
        if (profile.property("fieldInfo.enable").filter(value -> ! value.isEmpty()).isPresent())
            throw new UnsupportedFeatureException("ranking.listFeatures with rank profile '" + profile.name() + "': it sets fieldInfo.enable, " +
                                                  "and the fieldInfo features proton then lists are not supported by this content engine");
        List<String> names = new ArrayList<>();
        for (Field field : fields(schema)) {
            String f = field.name();
            if ( ! field.index()) {
                if (PRIMITIVE_TYPES.contains(field.dataType())) {
                    names.add("attributeMatch(" + f + ")");
                    for (String output : ATTRIBUTE_MATCH_OUTPUTS) names.add("attributeMatch(" + f + ")." + output);
                }
                names.add("matches(" + f + ")");
                continue;
            }
            boolean filter = "true".equals(profile.property("vespa.isfilterfield." + f).orElse(null));
            boolean single = field.collection().equals("SINGLE");
            names.add("matches(" + f + ")");
            names.add("bm25(" + f + ")");
            for (int term = 0; term < fieldTermMatchTerms(profile, f); term++)
                for (String output : List.of("firstPosition", "occurrences", "weight"))
                    names.add("fieldTermMatch(" + f + "," + term + ")." + output);
            if ( ! filter)
                for (String output : ELEMENT_COMPLETENESS_OUTPUTS) names.add("elementCompleteness(" + f + ")." + output);
            if (single) {
                names.add("fieldMatch(" + f + ")");
                for (String output : filter ? FILTER_FIELD_MATCH_OUTPUTS : FIELD_MATCH_OUTPUTS) names.add("fieldMatch(" + f + ")." + output);
                if ( ! filter)
                    for (String output : TEXT_SIMILARITY_OUTPUTS) names.add("textSimilarity(" + f + ")." + output);
            }
            else if ( ! filter) {
                String feature = "elementSimilarity(" + f + ")";
                List<ElementSimilarityFeature.Output> outputs = ElementSimilarityFeature.outputs(profile, feature);
                names.add(feature);
                for (int i = 1; i < outputs.size(); i++) names.add(feature + "." + outputs.get(i).name());
            }
        }
        names.addAll(List.of("firstPhase", "nativeAttributeMatch", "nativeFieldMatch", "nativeProximity", "nativeRank", "queryTermCount"));
        for (int term = 0; term < intProperty(profile, "term.numTerms", 5); term++)
            for (String output : List.of("connectedness", "significance", "weight"))
                names.add("term(" + term + ")." + output);
        return names;
    }

    /** The fields of proton's index environment: attributes, then index fields, an index field replacing an attribute of its name. */
    private static List<Field> fields(SchemaConfigs schema) {
        Map<String, Field> fields = new LinkedHashMap<>();
        for (AttributesConfig.Attribute attribute : schema.attributes().attribute())
            fields.put(attribute.name(), new Field(attribute.name(), false, attribute.collectiontype().name(), attribute.datatype().name()));
        for (IndexschemaConfig.Indexfield field : schema.indexSchema().indexfield())
            fields.put(field.name(), new Field(field.name(), true, field.collectiontype().name(), field.datatype().name()));
        return List.copyOf(fields.values());
    }

    private static int fieldTermMatchTerms(RankProfile profile, String field) {
        String value = profile.property("fieldTermMatch(" + field + ").numTerms")
                              .or(() -> profile.property("fieldTermMatch.numTerms." + field))
                              .orElse(profile.property("fieldTermMatch.numTerms").orElse("5"));
        return atoi(value);
    }

    private static int intProperty(RankProfile profile, String name, int fallback) {
        return profile.property(name).map(DefaultDumpFeatures::atoi).orElse(fallback);
    }

    /** As C's atoi: the leading integer, 0 where there is none. */
    private static int atoi(String value) {
        String text = value.trim();
        int end = 0;
        if (end < text.length() && (text.charAt(end) == '-' || text.charAt(end) == '+')) end++;
        while (end < text.length() && Character.isDigit(text.charAt(end))) end++;
        try {
            return Integer.parseInt(text.substring(0, end));
        }
        catch (NumberFormatException e) {
            return 0;
        }
    }

}
