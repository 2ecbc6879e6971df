package ai.dwell.runtime.rank;

import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The rank properties and feature overrides of one request (strings and tensors in Vespa's binary
 * tensor format), keyed by name, e.g. "query(W_0)" or "vespa.now". Made from a request at the engine's edge
 * (ai.dwell.runtime.engine.query.ProtobufRequests); a feature override replaces a rank property of the same name.
 */
public final class QueryProperties {

    private final Map<String, String> strings;
    private final Map<String, List<String>> allValues; // of the properties that have more than one value
    private final Map<String, byte[]> tensors;
    /** The names read through this view, or null when reads are not recorded. */
    private final Set<String> reads;

    /** Properties with these string and tensor values (the maps are copied). */
    public QueryProperties(Map<String, String> strings, Map<String, byte[]> tensors) {
        this(strings, Map.of(), tensors);
    }

    /**
     * Properties with these string and tensor values, and all the values of those that have several (e.g. the two of
     * vespa.term.&lt;id&gt;.connexity); the maps are copied.
     */
    public QueryProperties(Map<String, String> strings, Map<String, List<String>> allValues, Map<String, byte[]> tensors) {
        this.strings = new HashMap<>(strings);
        this.allValues = new HashMap<>();
        allValues.forEach((name, values) -> this.allValues.put(name, List.copyOf(values)));
        this.tensors = new HashMap<>(tensors);
        this.reads = null;
    }

    private QueryProperties(QueryProperties source, Set<String> reads) {
        this.strings = source.strings;
        this.allValues = source.allValues;
        this.tensors = source.tensors;
        this.reads = reads;
    }

    /** The same properties, in a view that records which names are read (see {@link #reads}). */
    QueryProperties recordingReads() { return new QueryProperties(this, new LinkedHashSet<>()); }

    /** The names read through this view, if it records them: what a computation from it depends on. */
    Set<String> reads() { return reads == null ? Set.of() : Set.copyOf(reads); }

    /** Whether the other properties have the same value (or absence) as these for every one of the names. */
    boolean sameValues(QueryProperties other, Collection<String> names) {
        for (String name : names) {
            if ( ! Objects.equals(strings.get(name), other.strings.get(name))) return false;
            if ( ! Objects.equals(allValues.get(name), other.allValues.get(name))) return false;
            if ( ! Arrays.equals(tensors.get(name), other.tensors.get(name))) return false;
        }
        return true;
    }

    /** No properties: what verification compiles rank profiles with. */
    public static QueryProperties none() { return new QueryProperties(Map.of(), Map.of()); }

    public Optional<String> string(String name) {
        read(name);
        return Optional.ofNullable(strings.get(name));
    }

    /** All the values of a string property, in order: none when it is not set. */
    public List<String> values(String name) {
        read(name);
        List<String> all = allValues.get(name);
        if (all != null) return all;
        String value = strings.get(name);
        return value == null ? List.of() : List.of(value);
    }

    /** A tensor property decoded with the given type (or the type it carries), if present. */
    public Optional<Tensor> tensor(String name, Optional<TensorType> type) {
        read(name);
        byte[] bytes = tensors.get(name);
        if (bytes == null) return Optional.empty();
        return Optional.of(TypedBinaryFormat.decode(type, new GrowableByteBuffer(ByteBuffer.wrap(bytes))));
    }

    public boolean has(String name) {
        read(name);
        return strings.containsKey(name) || tensors.containsKey(name);
    }

    private void read(String name) {
        if (reads != null) reads.add(name);
    }

}
