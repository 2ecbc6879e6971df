package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.ImportedAttribute;
import ai.dwell.runtime.index.ReferenceAttribute;
import ai.dwell.runtime.index.SchemaConfigs;
import ai.dwell.runtime.index.TensorAttribute;
import com.yahoo.vespa.config.search.IndexschemaConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The settings of the native rank features of one rank profile over one document type, read from the profile's rank
 * properties as searchlib's blueprints read them (nativerankfeature.cpp, nativefieldmatchfeature.cpp,
 * nativeproximityfeature.cpp, nativeattributematchfeature.cpp):
 * <ul>
 *   <li>nativeRank.fieldMatchWeight (100), .attributeMatchWeight (100), .proximityWeight (25; 100 without table
 *       normalization), .useTableNormalization (anything but "false" is true);
 *   <li>nativeFieldMatch.firstOccurrenceTable (expdecay(8000,12.50)), .occurrenceCountTable (loggrowth(1500,4000,19)),
 *       .firstOccurrenceImportance (0.5), .minFieldLength (6), and per field .averageFieldLength (a fixed length for
 *       the tables in place of the document's);
 *   <li>nativeProximity.proximityTable (expdecay(500,3)), .reverseProximityTable (expdecay(400,3)), .proximityImportance
 *       (0.5), .slidingWindowSize (4), and per field .elementGap (else the field's vespa.matching.element_gap, else
 *       infinity: terms in different elements are never near);
 *   <li>nativeAttributeMatch.weightTable (linear(1,0));
 * </ul>
 * a table or importance per field as feature.setting.field, else feature(field).setting, else feature.setting; the
 * fields' weights (vespa.fieldweight.field, 100; a field of weight 0 is left out) and filter fields
 * (vespa.isfilterfield.field: left out of field match and proximity). With table normalization each field's
 * scores are divided by the largest sum its tables can give. Values proton could not use (a table that is not
 * expdecay, loggrowth or linear, a number that does not parse, a minFieldLength below 2, where proton would divide by
 * zero) and names of these features' properties that proton does not read are refused, naming the property.
 */
final class NativeRankSetup {

    private static final Pattern PROPERTY = Pattern.compile("(nativeRank|nativeFieldMatch|nativeProximity|nativeAttributeMatch)(?:\\(([^()]*)\\))?\\.(.+)");

    private static final Map<String, Set<String>> GLOBAL = Map.of(
            "nativeRank", Set.of("fieldMatchWeight", "attributeMatchWeight", "proximityWeight", "useTableNormalization"),
            "nativeFieldMatch", Set.of("firstOccurrenceTable", "occurrenceCountTable", "firstOccurrenceImportance", "minFieldLength"),
            "nativeProximity", Set.of("proximityTable", "reverseProximityTable", "proximityImportance", "slidingWindowSize"),
            "nativeAttributeMatch", Set.of("weightTable"));
    /** Settings given per field, as feature.setting.field. */
    private static final Map<String, Set<String>> PER_FIELD = Map.of(
            "nativeRank", Set.of(),
            "nativeFieldMatch", Set.of("firstOccurrenceTable", "occurrenceCountTable", "firstOccurrenceImportance", "averageFieldLength"),
            "nativeProximity", Set.of("proximityTable", "reverseProximityTable", "proximityImportance", "elementGap"),
            "nativeAttributeMatch", Set.of("weightTable"));
    /** Settings given per field as feature(field).setting. */
    private static final Map<String, Set<String>> OF_FIELD = Map.of(
            "nativeRank", Set.of(),
            "nativeFieldMatch", Set.of("firstOccurrenceTable", "occurrenceCountTable", "firstOccurrenceImportance", "averageFieldLength"),
            "nativeProximity", Set.of("proximityTable", "reverseProximityTable", "proximityImportance"),
            "nativeAttributeMatch", Set.of("weightTable"));

    /** The settings of a field for field match and proximity (index fields) or attribute match (attributes). */
    record FieldMatchParam(FunctionTable firstOccurrence, FunctionTable occurrenceCount, double firstOccurrenceImportance,
                           OptionalLong averageFieldLength, long fieldWeight, boolean filter, double maxTableSum) {}
    record ProximityParam(FunctionTable proximity, FunctionTable reverseProximity, double proximityImportance,
                          OptionalLong elementGap, long fieldWeight, boolean filter, double maxTableSum) {}
    record AttributeParam(FunctionTable weights, long fieldWeight, double maxTableSum) {}

    private final RankProfile profile;
    private final String documentType;
    private final SchemaConfigs schema; // what this was made for, with these attributes (imported ones too)
    private final Set<String> attributes;
    private final Set<String> primitiveAttributes; // those that are neither tensors nor references
    private final List<String> indexFields = new ArrayList<>(); // in proton's field id order
    private final List<String> attributeFields = new ArrayList<>();
    private final Map<String, FieldMatchParam> fieldMatch = new HashMap<>();
    private final Map<String, ProximityParam> proximity = new HashMap<>();
    private final Map<String, AttributeParam> attributeMatch = new HashMap<>();
    private final double fieldMatchWeight, attributeMatchWeight, proximityWeight;
    private final boolean tableNormalization;
    private final long minFieldLength;
    private final long slidingWindow;

    NativeRankSetup(RankProfile profile, DocumentIndex index) {
        this.profile = profile;
        this.documentType = index.name();
        this.schema = index.schema();
        this.attributes = Set.copyOf(index.attributes().keySet());
        Set<String> primitive = new java.util.HashSet<>();
        index.attributes().forEach((name, attribute) -> {
            Attribute target = attribute instanceof ImportedAttribute imported ? imported.target() : attribute;
            if ( ! (target instanceof TensorAttribute) && ! (target instanceof ReferenceAttribute)) primitive.add(name);
        });
        this.primitiveAttributes = Set.copyOf(primitive);
        for (IndexschemaConfig.Indexfield field : index.schema().indexSchema().indexfield()) indexFields.add(field.name());
        for (String attribute : index.attributes().keySet())
            if (index.index(attribute).isEmpty()) attributeFields.add(attribute); // an index field with an attribute is an index field to proton
        checkPropertyNames();
        tableNormalization = ! "false".equals(profile.property("nativeRank.useTableNormalization").orElse(null));
        fieldMatchWeight = number("nativeRank.fieldMatchWeight", "100");
        attributeMatchWeight = number("nativeRank.attributeMatchWeight", "100");
        proximityWeight = number("nativeRank.proximityWeight", tableNormalization ? "25" : "100");
        minFieldLength = whole("nativeFieldMatch.minFieldLength", "6");
        if (minFieldLength < 2)
            throw unsupported("nativeFieldMatch.minFieldLength = " + minFieldLength + " is not supported: proton divides by minFieldLength - 1 for a one-word field");
        slidingWindow = whole("nativeProximity.slidingWindowSize", "4");
        for (String field : indexFields) {
            fieldMatch.put(field, fieldMatchParam(field));
            proximity.put(field, proximityParam(field));
        }
        for (String field : attributeFields) attributeMatch.put(field, attributeParam(field));
    }

    /** Refuses properties of these features that proton does not read (it would ignore them: a misspelt name would do nothing). */
    private void checkPropertyNames() {
        for (String name : profile.propertyNames()) {
            if ( ! name.startsWith("native")) continue;
            Matcher matcher = PROPERTY.matcher(name);
            if ( ! matcher.matches()) continue; // another feature's (e.g. nativeDotProduct)
            String feature = matcher.group(1), field = matcher.group(2), setting = matcher.group(3);
            boolean known;
            if (field != null) {
                known = ! field.contains(",") && ! field.isBlank() && OF_FIELD.get(feature).contains(setting);
            }
            else {
                int dot = setting.indexOf('.');
                known = dot < 0 ? GLOBAL.get(feature).contains(setting) : PER_FIELD.get(feature).contains(setting.substring(0, dot));
            }
            if ( ! known)
                throw unsupported("rank property '" + name + "' is not one that " + feature + " reads, so it would have no effect; " + feature + " reads " +
                                  describe(feature));
        }
    }

    private static String describe(String feature) {
        List<String> names = new ArrayList<>();
        GLOBAL.get(feature).stream().sorted().forEach(setting -> names.add(feature + "." + setting));
        PER_FIELD.get(feature).stream().sorted().forEach(setting -> names.add(feature + "." + setting + ".<field>"));
        OF_FIELD.get(feature).stream().sorted().forEach(setting -> names.add(feature + "(<field>)." + setting));
        return String.join(", ", names);
    }

    private FieldMatchParam fieldMatchParam(String field) {
        FunctionTable first = table("nativeFieldMatch", "firstOccurrenceTable", field, "expdecay(8000,12.50)");
        FunctionTable count = table("nativeFieldMatch", "occurrenceCountTable", field, "loggrowth(1500,4000,19)");
        double importance = perField("nativeFieldMatch", "firstOccurrenceImportance", field, "0.5");
        Optional<String> length = profile.property("nativeFieldMatch(" + field + ").averageFieldLength")
                                         .or(() -> profile.property("nativeFieldMatch.averageFieldLength." + field));
        OptionalLong averageFieldLength = length.isEmpty() ? OptionalLong.empty() : OptionalLong.of(unsigned(length.get(), "averageFieldLength of '" + field + "'"));
        double max = maxTableSum(first.max() * importance + count.max() * (1 - importance));
        return new FieldMatchParam(first, count, importance, averageFieldLength, fieldWeight(field), isFilter(field), max);
    }

    private ProximityParam proximityParam(String field) {
        FunctionTable forward = table("nativeProximity", "proximityTable", field, "expdecay(500,3)");
        FunctionTable reverse = table("nativeProximity", "reverseProximityTable", field, "expdecay(400,3)");
        double importance = perField("nativeProximity", "proximityImportance", field, "0.5");
        double max = maxTableSum(forward.max() * importance + reverse.max() * (1 - importance));
        Optional<String> gap = profile.property("nativeProximity.elementGap." + field).or(() -> profile.property("vespa.matching.element_gap." + field));
        OptionalLong elementGap = gap.isEmpty() || gap.get().trim().equals("infinity") ? OptionalLong.empty()
                                  : OptionalLong.of(unsigned(gap.get(), "element gap of '" + field + "'"));
        return new ProximityParam(forward, reverse, importance, elementGap, fieldWeight(field), isFilter(field), max);
    }

    private AttributeParam attributeParam(String field) {
        FunctionTable weights = table("nativeAttributeMatch", "weightTable", field, "linear(1,0)");
        return new AttributeParam(weights, fieldWeight(field), maxTableSum(weights.max()));
    }

    /** The largest score a field's tables give, which its scores are divided by: 1 without table normalization or when 0. */
    private double maxTableSum(double value) {
        return ! tableNormalization || value == 0 ? 1 : value;
    }

    /** A table by the first of feature.table.field, feature(field).table, feature.table, or the default. */
    private FunctionTable table(String feature, String table, String field, String fallback) {
        String name = feature + "." + table + "." + field;
        Optional<String> given = profile.property(name);
        if (given.isEmpty()) given = profile.property(name = feature + "(" + field + ")." + table);
        if (given.isEmpty()) given = profile.property(name = feature + "." + table);
        try {
            return FunctionTable.of(given.orElse(fallback).trim());
        }
        catch (IllegalArgumentException e) {
            throw unsupported("rank property '" + name + "': " + e.getMessage());
        }
    }

    /** A number by the first of feature.setting.field, feature(field).setting, feature.setting, or the default. */
    private double perField(String feature, String setting, String field, String fallback) {
        String name = feature + "." + setting + "." + field;
        if (profile.property(name).isEmpty()) name = feature + "(" + field + ")." + setting;
        if (profile.property(name).isEmpty()) name = feature + "." + setting;
        return number(name, fallback);
    }

    private double number(String name, String fallback) {
        String value = profile.property(name).orElse(fallback).trim();
        try {
            return Double.parseDouble(value);
        }
        catch (NumberFormatException e) {
            throw unsupported("rank property '" + name + "' = '" + value + "' is not a number");
        }
    }

    private long whole(String name, String fallback) {
        return unsigned(profile.property(name).orElse(fallback), name);
    }

    private long unsigned(String value, String what) {
        try {
            long number = Long.parseLong(value.trim());
            if (number < 0 || number > 0xFFFFFFFFL) throw new NumberFormatException();
            return number;
        }
        catch (NumberFormatException e) {
            throw unsupported("the " + what + " ('" + value + "') is not a whole number from 0 to 4294967295");
        }
    }

    /** vespa.fieldweight.field, 100 unless set. */
    private long fieldWeight(String field) {
        String value = profile.property("vespa.fieldweight." + field).orElse("100").trim();
        try {
            return Long.parseLong(value) & 0xFFFFFFFFL;
        }
        catch (NumberFormatException e) {
            throw unsupported("rank property 'vespa.fieldweight." + field + "' = '" + value + "' is not a whole number");
        }
    }

    private boolean isFilter(String field) {
        return "true".equals(profile.property("vespa.isfilterfield." + field).orElse(null));
    }

    /**
     * The fields a feature instance considers, as searchlib's FieldWrapper picks them: those of its arguments that are
     * fields of the kind (index fields, or attributes), or all of that kind without arguments. An argument that is no
     * field of the schema is refused, as proton refuses it.
     */
    List<String> fields(FeatureName feature, boolean attributes) {
        List<String> ofKind = attributes ? attributeFields : indexFields;
        if (feature.arguments().isEmpty()) return ofKind;
        List<String> fields = new ArrayList<>();
        for (String argument : feature.arguments()) {
            if ( ! isField(argument)) throw unsupported("feature '" + feature + "': '" + argument + "' is not a field of '" + documentType + "'");
            if (ofKind.contains(argument)) fields.add(argument);
        }
        return fields;
    }

    /** The arguments of nativeAttributeMatch: attributes that are neither tensors nor references, as proton requires of them. */
    void checkAttributeArguments(FeatureName feature) {
        for (String argument : feature.arguments())
            if ( ! primitiveAttributes.contains(argument))
                throw unsupported("feature '" + feature + "': '" + argument + "' is not an attribute of a primitive type in '" + documentType + "'");
    }

    private boolean isField(String name) {
        return indexFields.contains(name) || attributes.contains(name);
    }

    /** Whether this was made for an index of this schema, with these attributes. */
    boolean isFor(DocumentIndex other) {
        return other.schema() == schema && other.attributes().keySet().equals(attributes);
    }

    List<String> indexFields() { return indexFields; }
    FieldMatchParam fieldMatch(String field) { return fieldMatch.get(field); }
    ProximityParam proximity(String field) { return proximity.get(field); }
    AttributeParam attributeMatch(String field) { return attributeMatch.get(field); }
    double fieldMatchWeight() { return fieldMatchWeight; }
    double attributeMatchWeight() { return attributeMatchWeight; }
    double proximityWeight() { return proximityWeight; }
    long minFieldLength() { return minFieldLength; }
    long slidingWindow() { return slidingWindow; }

    private UnsupportedFeatureException unsupported(String message) {
        return new UnsupportedFeatureException("Rank profile '" + profile.name() + "': " + message);
    }

}
