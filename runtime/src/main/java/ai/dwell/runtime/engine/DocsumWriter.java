package ai.dwell.runtime.engine;

import ai.dwell.runtime.engine.teaser.Teasers;
import ai.dwell.runtime.format.TensorBytes;
import ai.dwell.runtime.index.Attribute;
import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.index.TensorAttribute;
import ai.dwell.runtime.rank.RankProgram;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.document.GlobalId;
import com.yahoo.document.datatypes.BoolFieldValue;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.NumericFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.slime.Cursor;
import com.yahoo.tensor.Tensor;
import com.yahoo.vespa.config.search.SummaryConfig;

import java.util.List;
import java.util.Set;

/**
 * Writes one document's summary into Slime as container-search decodes it: numbers as longs or doubles,
 * strings as strings, tensors in Vespa's binary format (as data), documentid as the id string, and
 * summaryfeatures / matchfeatures as objects of feature values.
 */
final class DocsumWriter {

    private DocsumWriter() {}

    /** A way to compute rank features for the document when the summary asks for them. */
    interface FeatureSource {
        List<RankProgram.OutputFeature> summaryFeatures();
        List<RankProgram.OutputFeature> matchFeatures();
        /** The rank profile's rank-features, when the request asks for them (ranking.listFeatures); else null. */
        List<RankProgram.OutputFeature> rankFeatures();
    }

    /** Where a field the engine refuses is reported, while the document's other fields are written. */
    interface FieldErrors {
        void refused(String message);
    }

    static void write(Cursor docsum, DocumentIndex index, int lid, SummaryConfig.Classes summaryClass, Set<String> wanted, FeatureSource features) {
        write(docsum, index, lid, summaryClass, wanted, features, null, message -> { throw new UnsupportedFeatureException(message); });
    }

    /**
     * Writes the summary of one document. Attribute fields come from the attributes; of the document, which
     * is kept serialized, only what a field needs is decoded (its id for documentid, a field that is no attribute).
     * A dynamic summary field (command dynamicteaser) is written by the teasers; one they refuse is left out and reported.
     */
    static void write(Cursor docsum, DocumentIndex index, int lid, SummaryConfig.Classes summaryClass, Set<String> wanted, FeatureSource features,
                      Teasers teasers, FieldErrors errors) {
        for (SummaryConfig.Classes.Fields field : summaryClass.fields()) {
            if ( ! wanted.isEmpty() && ! wanted.contains(field.name())) continue;
            switch (field.command()) {
                case "documentid" -> {
                    String id = index.summaryDocumentId(lid);
                    if (id != null) docsum.setString(field.name(), id);
                }
                // a profile without such features gets no field, as proton's SummaryFeaturesDFW writes none (not an empty object)
                case "summaryfeatures" -> { if (features != null) writeFeaturesIfAny(docsum, field.name(), features.summaryFeatures(), lid); }
                case "matchfeatures" -> { if (features != null) writeFeaturesIfAny(docsum, field.name(), features.matchFeatures(), lid); }
                case "rankfeatures" -> {
                    List<RankProgram.OutputFeature> dumped = features == null ? null : features.rankFeatures();
                    if (dumped != null) writeFeatures(docsum.setObject(field.name()), dumped, lid);
                }
                case "attribute", "attributecombiner", "" , "copy" -> {
                    String source = field.source().isEmpty() ? field.name() : field.source();
                    var attribute = index.attribute(source);
                    if (attribute.isPresent() && ! (attribute.get() instanceof MultiValueAttribute) // the document holds its elements, as written
                        && (field.command().startsWith("attribute") || keptOnlyByAttribute(attribute.get())))
                        writeAttribute(docsum, field.name(), attribute.get(), lid);
                    else {
                        writeField(docsum, field.name(), index.summaryFieldValue(lid, source));
                    }
                }
                case "dynamicteaser" -> {
                    if (teasers == null) throw new UnsupportedFeatureException("Summary field '" + field.name() + "' (summary: dynamic) needs the query");
                    String source = field.source().isEmpty() ? field.name() : field.source();
                    FieldValue value = index.summaryFieldValue(lid, source);
                    if (value == null) continue;
                    try {
                        if (value instanceof com.yahoo.document.datatypes.Array<?> array) { // each element's teaser, as proton's SlimeFiller has juniper write them
                            List<String> elements = new java.util.ArrayList<>(array.size());
                            for (Object element : array.getValues()) elements.add(teasers.of(field.name(), source, (FieldValue) element));
                            Cursor out = docsum.setArray(field.name());
                            for (String element : elements) out.addString(element);
                        }
                        else {
                            docsum.setString(field.name(), teasers.of(field.name(), source, value));
                        }
                    }
                    catch (UnsupportedFeatureException e) {
                        errors.refused(e.getMessage());
                    }
                }
                case "tokens" -> {
                    String source = field.source().isEmpty() ? field.name() : field.source();
                    TokensSummary.write(docsum, field.name(), index.summaryFieldValue(lid, source));
                }
                default -> throw new UnsupportedFeatureException("Summary field '" + field.name() + "' uses command '" + field.command() + "', which is not supported");
            }
        }
    }

    /** Whether the attribute is the only copy of the field's value (the cells of a float vector). */
    private static boolean keptOnlyByAttribute(Attribute attribute) {
        return attribute instanceof TensorAttribute tensor && tensor.keepsCellsInVectorIndex();
    }

    private static void writeFeaturesIfAny(Cursor docsum, String name, List<RankProgram.OutputFeature> features, int lid) {
        if ( ! features.isEmpty()) writeFeatures(docsum.setObject(name), features, lid);
    }

    static void writeFeatures(Cursor object, List<RankProgram.OutputFeature> features, int lid) {
        for (RankProgram.OutputFeature feature : features) {
            if (feature.isNumber()) object.setDouble(feature.name(), feature.number(lid));
            else object.setData(feature.name(), TensorBytes.encode(feature.tensor(lid)));
        }
    }

    private static void writeAttribute(Cursor docsum, String name, Attribute attribute, int lid) {
        Object value = attribute.value(lid);
        if (value == null) return;
        if (value instanceof Long l) docsum.setLong(name, l);
        else if (value instanceof Boolean b) docsum.setBool(name, b);
        else if (value instanceof Double d) docsum.setDouble(name, d);
        else if (value instanceof String s) docsum.setString(name, s);
        else if (value instanceof Tensor t) docsum.setData(name, TensorBytes.encode(t));
        else if (value instanceof GlobalId) { } // references are not summarized from the attribute
    }

    private static void writeField(Cursor docsum, String name, FieldValue value) {
        if (value == null) return;
        if (value instanceof StringFieldValue s) docsum.setString(name, s.getString());
        else if (value instanceof DoubleFieldValue || value instanceof FloatFieldValue) docsum.setDouble(name, ((NumericFieldValue) value).getNumber().doubleValue());
        else if (value instanceof NumericFieldValue n) docsum.setLong(name, n.getNumber().longValue());
        else if (value instanceof BoolFieldValue b) docsum.setBool(name, b.getBoolean());
        else if (value instanceof TensorFieldValue t) t.getTensor().ifPresent(tensor -> docsum.setData(name, TensorBytes.encode(tensor)));
        else if (value instanceof com.yahoo.document.datatypes.StructuredFieldValue struct) {
            Cursor object = docsum.setObject(name);
            struct.iterator().forEachRemaining(field -> writeValue(object, field.getKey().getName(), field.getValue()));
        }
        else if (value instanceof com.yahoo.document.datatypes.WeightedSet<?> || value instanceof com.yahoo.document.datatypes.Array<?>
                 || value instanceof com.yahoo.document.datatypes.MapFieldValue<?, ?>)
            writeComposite(docsum.setArray(name), value);
        else docsum.setString(name, value.toString());
    }

    /** Multi-value fields as proton renders them: arrays as arrays, weighted sets as [{item, weight}], maps as [{key, value}], structs as objects. */
    private static void writeComposite(Cursor array, FieldValue value) {
        if (value instanceof com.yahoo.document.datatypes.WeightedSet<?> set) {
            for (Object item : set.keySet()) {
                Cursor entry = array.addObject();
                writeValue(entry, "item", (FieldValue) item);
                entry.setLong("weight", set.get(item));
            }
        }
        else if (value instanceof com.yahoo.document.datatypes.Array<?> list) {
            for (Object element : list.getValues()) writeElement(array, (FieldValue) element);
        }
        else if (value instanceof com.yahoo.document.datatypes.MapFieldValue<?, ?> map) {
            for (var e : map.entrySet()) {
                Cursor entry = array.addObject();
                writeValue(entry, "key", (FieldValue) e.getKey());
                writeValue(entry, "value", (FieldValue) e.getValue());
            }
        }
    }

    private static void writeValue(Cursor object, String name, FieldValue value) { writeField(object, name, value); }

    private static void writeElement(Cursor array, FieldValue value) {
        if (value instanceof StringFieldValue s) array.addString(s.getString());
        else if (value instanceof DoubleFieldValue || value instanceof FloatFieldValue) array.addDouble(((NumericFieldValue) value).getNumber().doubleValue());
        else if (value instanceof NumericFieldValue n) array.addLong(n.getNumber().longValue());
        else if (value instanceof BoolFieldValue b) array.addBool(b.getBoolean());
        else if (value instanceof com.yahoo.document.datatypes.StructuredFieldValue struct) {
            Cursor object = array.addObject();
            struct.iterator().forEachRemaining(field -> writeValue(object, field.getKey().getName(), field.getValue()));
        }
        else array.addString(value.toString());
    }

}
