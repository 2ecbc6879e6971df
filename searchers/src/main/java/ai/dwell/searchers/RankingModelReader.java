package ai.dwell.searchers;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.Field;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.search.schema.RankProfile;
import com.yahoo.tensor.Tensor;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a rankingmodel document into a {@link RankingModel} for one rank profile, checking
 * that it matches the query inputs which that profile declares. A document that does not
 * match is refused as a whole: a query must never get part of a model, and an undeclared
 * query tensor would silently be read as a number by the content nodes. The document type, its
 * version field and the version input come from {@link RankingModelConfig}.
 */
class RankingModelReader {

    private final String namespace;
    private final String documentType;
    private final String versionField;
    private final String versionInput;

    RankingModelReader(RankingModelConfig config) {
        this.namespace = config.documentNamespace();
        this.documentType = config.documentType();
        this.versionField = config.versionField();
        this.versionInput = "query(" + config.versionInput() + ")";
    }

    /** The id of the document holding the model of this rank profile. */
    DocumentId documentId(String profile) {
        return new DocumentId("id:" + namespace + ":" + documentType + "::" + profile);
    }

    /** The rank feature that carries the model version with a query, e.g. query(model_version). */
    String versionInput() { return versionInput; }

    /** Returns whether this rank profile is served with model weights from a model document. */
    boolean isModelProfile(RankProfile profile) {
        return profile.inputs().containsKey(versionInput);
    }

    /**
     * Reads the model for the given profile from its document.
     *
     * @throws IllegalArgumentException naming what is wrong when the document does not fit the profile
     */
    RankingModel read(Document document, RankProfile profile) {
        long version = version(document);
        if (version <= RankingModel.PACKAGE_VERSION)
            throw new IllegalArgumentException(document.getId() + ": version must be positive, was " + version);

        Map<String, Tensor> tensors = new HashMap<>();
        Iterator<Map.Entry<Field, FieldValue>> fields = document.iterator();
        while (fields.hasNext()) {
            Map.Entry<Field, FieldValue> entry = fields.next();
            if ( ! (entry.getValue() instanceof TensorFieldValue value)) continue;
            Optional<Tensor> tensor = value.getTensor();
            if (tensor.isEmpty()) continue;
            String feature = "query(" + entry.getKey().getName() + ")";
            RankProfile.InputType declared = profile.inputs().get(feature);
            if (declared == null)
                throw new IllegalArgumentException(document.getId() + ": field '" + entry.getKey().getName() +
                                                   "' is not declared as input " + feature +
                                                   " of rank profile '" + profile.name() + "'");
            if ( ! tensor.get().type().equals(declared.tensorType()))
                throw new IllegalArgumentException(document.getId() + ": " + feature + " has type " +
                                                   tensor.get().type() + " but rank profile '" + profile.name() +
                                                   "' declares " + declared.tensorType());
            tensors.put(feature, tensor.get());
        }
        for (var input : profile.inputs().entrySet()) {
            boolean isWeight = input.getValue().tensorType().rank() > 0 && ! input.getKey().equals(versionInput);
            if (isWeight && ! tensors.containsKey(input.getKey()))
                throw new IllegalArgumentException(document.getId() + ": lacks " + input.getKey() +
                                                   " which rank profile '" + profile.name() + "' declares");
        }
        return new RankingModel(profile.name(), version, tensors);
    }

    private long version(Document document) {
        FieldValue value = document.getFieldValue(versionField);
        if ( ! (value instanceof LongFieldValue version))
            throw new IllegalArgumentException(document.getId() + ": has no version");
        return version.getLong();
    }

}
