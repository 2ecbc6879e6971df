package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.Attribute;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Sort blobs of a single-value string attribute, as proton's StringSortBlobWriter writes them: the UTF-8 bytes
 * (lowercased and folded for lowercase(x)) and a terminating 0, every byte inverted when descending. An empty or
 * unset value is missing: by default the empty string; with missing(...) a 0 or 1 byte, present values prefixed
 * by the other, or the replacement value (not lowercased, as in proton).
 * The bytes of each distinct value are made once per query.
 */
final class StringSortBlobWriter implements SortBlobWriter {

    private static final byte[] EMPTY = { 0 };

    private final Attribute attribute;
    private final boolean ascending;
    private final SortField.MissingPolicy policy;
    private final byte[] missingBlob;
    private final Map<String, byte[]> bytes = new HashMap<>();
    private final Function<String, byte[]> encoder;

    StringSortBlobWriter(Attribute attribute, SortField field) {
        this.attribute = attribute;
        this.ascending = field.ascending();
        this.policy = field.missingPolicy();
        this.missingBlob = policy == SortField.MissingPolicy.AS ? terminated(field.missingValue()) : EMPTY;
        this.encoder = field.lowercase() ? value -> terminated(LowercaseFolder.fold(value)) : StringSortBlobWriter::terminated;
    }

    @Override
    public void write(int lid, double relevance, SortBlobs out) {
        Object value = attribute.value(lid);
        boolean missing = value == null || ((String) value).isEmpty();
        switch (policy) {
            case FIRST -> { out.put(missing ? 0 : 1); if (missing) return; }
            case LAST -> { out.put(missing ? 1 : 0); if (missing) return; }
            default -> { if (missing) { out.put(missingBlob, ascending); return; } }
        }
        out.put(bytes.computeIfAbsent((String) value, encoder), ascending);
    }

    private static byte[] terminated(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        byte[] result = new byte[utf8.length + 1];
        System.arraycopy(utf8, 0, result, 0, utf8.length);
        return result;
    }

}
