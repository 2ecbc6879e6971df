package ai.dwell.runtime.storage;

import com.yahoo.document.DocumentId;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The current, durable documents, ordered by document type and then document id, so that visits
 * have a stable order and can resume after the last document they returned. Documents are kept serialized
 * ({@link StoredDocument}) and keyed by their id, so storing one needs no decoding.
 */
final class DocumentTable {

    private static final char TYPE_SEPARATOR = '\0';

    private final ConcurrentSkipListMap<String, StoredDocument> documents = new ConcurrentSkipListMap<>();
    private final AtomicLong size = new AtomicLong();

    Optional<StoredDocument> get(DocumentId id) {
        if ( ! id.hasDocType()) return Optional.empty();
        return Optional.ofNullable(documents.get(key(id.getDocType(), id)));
    }

    /** Stores a document under its id, whose type must be the document's type. */
    void put(DocumentId id, StoredDocument document) {
        if (documents.put(key(id.getDocType(), id), document) == null) size.incrementAndGet();
    }

    void remove(DocumentId id) {
        if (id.hasDocType() && documents.remove(key(id.getDocType(), id)) != null) size.decrementAndGet();
    }

    void clear() {
        documents.clear();
        size.set(0);
    }

    long size() { return size.get(); }

    /** A weakly consistent view of all documents with their ids: changes during iteration may or may not be seen. */
    Iterable<Map.Entry<String, StoredDocument>> entries() { return documents.entrySet(); }

    /** The document id of a key of {@link #entries}. */
    static DocumentId idOf(String key) { return new DocumentId(key.substring(key.indexOf(TYPE_SEPARATOR) + 1)); }

    /** A weakly consistent view of all documents: changes during iteration may or may not be seen. */
    Collection<StoredDocument> all() { return documents.values(); }

    /**
     * Applies the reader to the documents in order, starting after the continuation, and returns its first
     * {@code maxDocuments} results that are not null: a visit with a filter reads, filters and decodes in one step.
     *
     * @param documentType the type to visit, or null for all types
     * @param reader what to return for each document, or null to leave it out of the page
     * @param continuation a continuation returned by an earlier call, or null to start from the beginning
     * @throws IllegalArgumentException if the continuation is not one returned by this for the same type
     */
    <T> Visited<T> visit(String documentType, Function<StoredDocument, T> reader, String continuation, int maxDocuments) {
        NavigableMap<String, StoredDocument> range = documentType == null
                                                     ? documents
                                                     : documents.subMap(documentType + TYPE_SEPARATOR, true,
                                                                        documentType + (char) (TYPE_SEPARATOR + 1), false);
        if (continuation != null) {
            String after = decode(continuation);
            if (documentType != null && ! after.startsWith(documentType + TYPE_SEPARATOR))
                throw new IllegalArgumentException("Continuation '" + continuation + "' is not from a visit of '" + documentType + "'");
            range = range.tailMap(after, false);
        }

        List<T> page = new ArrayList<>();
        Iterator<Map.Entry<String, StoredDocument>> entries = range.entrySet().iterator();
        String lastKey = null;
        while (page.size() < maxDocuments && entries.hasNext()) {
            Map.Entry<String, StoredDocument> entry = entries.next();
            lastKey = entry.getKey();
            T read = reader.apply(entry.getValue());
            if (read != null) page.add(read);
        }
        return new Visited<>(page, entries.hasNext() ? Optional.of(encode(lastKey)) : Optional.empty());
    }

    /** A page of what was read from visited documents, and where the next page starts, if anywhere. */
    record Visited<T>(List<T> documents, Optional<String> continuation) { }

    private static String key(String documentType, DocumentId id) {
        return documentType + TYPE_SEPARATOR + id;
    }

    private static String encode(String key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String continuation) {
        try {
            String key = new String(Base64.getUrlDecoder().decode(continuation), StandardCharsets.UTF_8);
            if (key.indexOf(TYPE_SEPARATOR) < 0) throw new IllegalArgumentException("no type separator");
            return key;
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid continuation '" + continuation + "'", e);
        }
    }

}
