package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.vespa.config.search.AttributesConfig;

/** Writes one sort key of a document to its sort blob, byte for byte as proton's ISortBlobWriter for that key. */
interface SortBlobWriter {

    void write(int lid, double relevance, SortBlobs out);

    /** The writer of a sort field over an index's attributes; fails naming what is not supported. */
    static SortBlobWriter of(SortField field, DocumentIndex index) {
        if (field.attribute().equals(SortField.RANK)) {
            return (lid, relevance, out) -> out.putDouble(relevance, field.ascending());
        }
        if (field.attribute().equals(SortField.DOCID)) { // the document meta store's blob: the global id
            return (lid, relevance, out) -> out.put(index.globalId(lid).getRawId(), field.ascending());
        }
        var attribute = index.attribute(field.attribute())
                .orElseThrow(() -> new IllegalArgumentException("No attribute '" + field.attribute() + "' to sort on in '" + index.name() + "'"));
        AttributesConfig.Attribute config = index.attributeConfig(field.attribute()).orElseThrow();
        if (field.lowercase() && config.datatype() != AttributesConfig.Attribute.Datatype.STRING)
            throw new UnsupportedFeatureException("lowercase() sorting on non-string attribute '" + field.attribute() + "' is not supported");
        if (attribute instanceof MultiValueAttribute multi) {
            NumericSortBlobWriter.Width width = switch (config.datatype()) {
                case STRING -> null;
                case BOOL, INT8 -> NumericSortBlobWriter.Width.INT8;
                case INT16 -> NumericSortBlobWriter.Width.INT16;
                case INT32 -> NumericSortBlobWriter.Width.INT32;
                case INT64 -> NumericSortBlobWriter.Width.INT64;
                case FLOAT -> NumericSortBlobWriter.Width.FLOAT;
                case DOUBLE -> NumericSortBlobWriter.Width.DOUBLE;
                default -> throw new UnsupportedFeatureException("Sorting on " + config.datatype() + " attribute '" + field.attribute() + "' is not supported by this content engine");
            };
            return new MultiValueSortBlobWriter(multi, field, width);
        }
        return switch (config.datatype()) {
            case STRING -> new StringSortBlobWriter(attribute, field);
            case BOOL, INT8 -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.INT8);
            case INT16 -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.INT16);
            case INT32 -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.INT32);
            case INT64 -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.INT64);
            case FLOAT -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.FLOAT);
            case DOUBLE -> new NumericSortBlobWriter(attribute, field, NumericSortBlobWriter.Width.DOUBLE);
            default -> throw new UnsupportedFeatureException("Sorting on " + config.datatype() + " attribute '" + field.attribute() + "' is not supported by this content engine");
        };
    }

}
