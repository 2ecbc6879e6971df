package ai.dwell.runtime.rank;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rank properties and feature overrides of one request (strings and tensors in Vespa's binary
 * tensor format), keyed by name, e.g. "query(W_0)" or "vespa.now".
 */
public final class QueryProperties {

    private final Map<String, String> strings = new HashMap<>();
    private final Map<String, byte[]> tensors = new HashMap<>();

    public QueryProperties(List<SearchProtocol.StringProperty> rankProperties, List<SearchProtocol.TensorProperty> tensorRankProperties,
                           List<SearchProtocol.StringProperty> featureOverrides, List<SearchProtocol.TensorProperty> tensorFeatureOverrides) {
        for (var property : rankProperties) if (property.getValuesCount() > 0) strings.put(property.getName(), property.getValues(0));
        for (var property : featureOverrides) if (property.getValuesCount() > 0) strings.put(property.getName(), property.getValues(0));
        for (var property : tensorRankProperties) tensors.put(property.getName(), property.getValue().toByteArray());
        for (var property : tensorFeatureOverrides) tensors.put(property.getName(), property.getValue().toByteArray());
    }

    /** No properties: what verification compiles rank profiles with. */
    public static QueryProperties none() { return new QueryProperties(List.of(), List.of(), List.of(), List.of()); }

    public static QueryProperties of(SearchProtocol.SearchRequest request) {
        return new QueryProperties(request.getRankPropertiesList(), request.getTensorRankPropertiesList(),
                                   request.getFeatureOverridesList(), request.getTensorFeatureOverridesList());
    }

    public static QueryProperties of(SearchProtocol.DocsumRequest request) {
        return new QueryProperties(request.getRankPropertiesList(), request.getTensorRankPropertiesList(),
                                   request.getFeatureOverridesList(), request.getTensorFeatureOverridesList());
    }

    public Optional<String> string(String name) { return Optional.ofNullable(strings.get(name)); }

    /** A tensor property decoded with the given type (or the type it carries), if present. */
    public Optional<Tensor> tensor(String name, Optional<TensorType> type) {
        byte[] bytes = tensors.get(name);
        if (bytes == null) return Optional.empty();
        return Optional.of(TypedBinaryFormat.decode(type, new GrowableByteBuffer(ByteBuffer.wrap(bytes))));
    }

    public boolean has(String name) { return strings.containsKey(name) || tensors.containsKey(name); }

}
