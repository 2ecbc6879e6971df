package ai.dwell.runtime.index;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.Field;
import com.yahoo.document.GlobalId;
import com.yahoo.document.ReferenceDataType;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.tensor.TensorType;
import com.yahoo.vespa.config.search.AttributesConfig;
import com.yahoo.vespa.config.search.ImportedFieldsConfig;
import com.yahoo.vespa.config.search.IndexschemaConfig;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The documents of one document type on one content node, in memory: each document gets a local id;
 * attributes are columns over local ids; indexed fields have inverted indexes; the documents themselves
 * are kept serialized ({@link SerializedDocuments}), for summaries and updates. Not thread safe:
 * the owner serializes writes against reads.
 */
public final class DocumentIndex {

    private final SchemaConfigs schema;
    private final DocumentType type;
    private final Map<GlobalId, Integer> localIds = new HashMap<>();
    private final SerializedDocuments documents;
    private final List<TensorAttribute> vectorAttributes; // their cells are left out of the serialized documents
    private GlobalId[] globalIds = new GlobalId[0];
    private final BitSet active = new BitSet();
    private final Predicate<GlobalId> searchedHere; // null: every document held is searched here
    private final BitSet searched; // the active documents searched here: active itself when searchedHere is null
    private final Deque<Integer> freeLids = new ArrayDeque<>();
    private int nextLid = 1; // local id 0 is never used, as in proton
    private long[] timestamps = new long[0]; // by local id: the store's timestamp of the version held
    private final BitSet verified = new BitSet(); // during a catch-up: the local ids found current or written
    private long changes = 0; // writes since this was created or loaded
    private final Map<String, Attribute> attributes = new LinkedHashMap<>();
    private final Map<String, AttributesConfig.Attribute> attributeConfigs = new HashMap<>();
    private final Map<String, TextIndex> indexes = new LinkedHashMap<>();
    private final Map<String, List<String>> fieldsets = new HashMap<>();
    private final List<ReferenceAttribute> referrers = new ArrayList<>();

    /** The index of the schema's document type, which the types must hold; every document it holds is searched. */
    public DocumentIndex(SchemaConfigs schema, DocumentTypeManager types) {
        this(schema, types, null);
    }

    /**
     * The index of the schema's document type, searching only the documents the predicate accepts (by global id): a
     * global type's copies on one node of several, where only the copies of the buckets this node owns are active for
     * search (the others serve imports). Null searches all.
     */
    public DocumentIndex(SchemaConfigs schema, DocumentTypeManager types, Predicate<GlobalId> searchedHere) {
        this.searchedHere = searchedHere;
        this.searched = searchedHere == null ? active : new BitSet();
        this.schema = schema;
        this.type = types.getDocumentType(schema.name());
        if (type == null) throw new IllegalArgumentException("No document type '" + schema.name() + "'");
        for (AttributesConfig.Attribute config : schema.attributes().attribute()) {
            attributeConfigs.put(config.name(), config);
            if ( ! config.imported()) attributes.put(config.name(), createAttribute(config));
        }
        this.vectorAttributes = attributes.values().stream()
                                          .filter(attribute -> attribute instanceof TensorAttribute tensor && tensor.keepsCellsInVectorIndex())
                                          .map(attribute -> (TensorAttribute) attribute).toList();
        this.documents = new SerializedDocuments(types, vectorAttributes.stream().map(Attribute::name).collect(Collectors.toSet()),
                                                 annotatedSummarySources(schema.summary()));
        for (IndexschemaConfig.Indexfield field : schema.indexSchema().indexfield()) {
            if (field.datatype() != IndexschemaConfig.Indexfield.Datatype.STRING)
                throw new IllegalArgumentException("Index field '" + field.name() + "' of '" + type.getName() + "': only string index fields are supported");
            indexes.put(field.name(), new TextIndex(field.name(), field.collectiontype() == IndexschemaConfig.Indexfield.Collectiontype.WEIGHTEDSET,
                                                    field.collectiontype() != IndexschemaConfig.Indexfield.Collectiontype.SINGLE));
        }
        for (IndexschemaConfig.Fieldset fieldset : schema.indexSchema().fieldset())
            fieldsets.put(fieldset.name(), fieldset.field().stream().map(IndexschemaConfig.Fieldset.Field::name).toList());
    }

    /**
     * The fields dynamic summaries and tokens summaries are made from: their documents keep the linguistics
     * annotations, which juniper and the tokens writer read.
     */
    private static Set<String> annotatedSummarySources(com.yahoo.vespa.config.search.SummaryConfig summary) {
        Set<String> sources = new java.util.HashSet<>();
        for (var summaryClass : summary.classes())
            for (var field : summaryClass.fields())
                if (field.command().equals("dynamicteaser") || field.command().equals("tokens")) sources.add(field.source().isEmpty() ? field.name() : field.source());
        return sources;
    }

    public String name() { return type.getName(); }
    public DocumentType type() { return type; }
    public SchemaConfigs schema() { return schema; }

    /** Connects imported attributes (ImportedFieldsConfig) to the indexes of the referenced global types on this node. */
    public void importFrom(Map<String, DocumentIndex> indexesOnNode) {
        for (ImportedFieldsConfig.Attribute imported : schema.importedFields().attribute()) {
            if ( ! (attributes.get(imported.referencefield()) instanceof ReferenceAttribute reference))
                throw new IllegalArgumentException("Imported field '" + imported.name() + "': '" + imported.referencefield() + "' is not a reference attribute");
            DocumentIndex target = indexesOnNode.get(reference.targetType());
            if (target == null)
                throw new IllegalArgumentException("Imported field '" + imported.name() + "': no document type '" + reference.targetType() + "' on this node");
            Attribute targetAttribute = target.attribute(imported.targetfield())
                    .orElseThrow(() -> new IllegalArgumentException("Imported field '" + imported.name() + "': no attribute '" + imported.targetfield() + "' in '" + target.name() + "'"));
            attributes.put(imported.name(), new ImportedAttribute(imported.name(), reference, targetAttribute));
            if ( ! target.referrers.contains(reference)) {
                target.referrers.add(reference);
                reference.resolveAgainst(target::localId);
            }
        }
    }

    /** The value of the attribute in the document: its field's, or a struct field's values (see {@link StructFieldValues}). */
    private static FieldValue attributeValue(Document document, String attribute) {
        return StructFieldValues.isStructField(attribute) ? StructFieldValues.of(document, attribute) : document.getFieldValue(attribute);
    }

    /** Stores or replaces a document (already processed by the indexing script). Returns its local id. */
    public int put(Document document) {
        if ( ! document.getDataType().getName().equals(type.getName()))
            throw new IllegalArgumentException("Document " + document.getId() + " of type '" + document.getDataType().getName() + "' put into '" + type.getName() + "'");
        GlobalId gid = globalId(document.getId());
        Integer existing = localIds.get(gid);
        int lid = existing != null ? existing : allocate();
        if (lid >= globalIds.length) globalIds = Arrays.copyOf(globalIds, Attribute.grow(globalIds.length, lid));
        documents.put(lid, document);
        globalIds[lid] = gid;
        for (Attribute attribute : attributes.values())
            if ( ! (attribute instanceof ImportedAttribute)) attribute.set(lid, attributeValue(document, attribute.name()));
        for (TextIndex index : indexes.values()) index.insert(lid, document.getFieldValue(index.field()));
        localIds.put(gid, lid);
        active.set(lid);
        if (searchedHere != null && searchedHere.test(gid)) searched.set(lid);
        verified.set(lid);
        changes++;
        if (existing == null) for (ReferenceAttribute referrer : referrers) referrer.targetChanged(gid, lid);
        return lid;
    }

    /**
     * Replaces a document that is here by a new version of it in which only the given fields changed
     * (an applied update): only their attributes and indexes are rewritten. Returns its local id.
     */
    public int put(Document document, Set<String> changedFields) {
        GlobalId gid = globalId(document.getId());
        Integer lid = localIds.get(gid);
        if (lid == null || ! document.getDataType().getName().equals(type.getName())) return put(document);
        documents.put(lid, document);
        verified.set(lid);
        changes++;
        for (String field : changedFields) {
            Attribute attribute = attributes.get(field);
            if (attribute != null && ! (attribute instanceof ImportedAttribute)) attribute.set(lid, document.getFieldValue(field));
            for (Attribute structField : attributes.values()) // the struct-field attributes of a changed array or map
                if (StructFieldValues.isStructField(structField.name()) && StructFieldValues.rootField(structField.name()).equals(field))
                    structField.set(lid, StructFieldValues.of(document, structField.name()));
            TextIndex index = indexes.get(field);
            if (index != null) index.insert(lid, document.getFieldValue(field));
        }
        return lid;
    }

    /**
     * Records the store's timestamp of the version of the document at the local id (its last write), which a
     * flushed state keeps, so that a start can tell which stored documents the state already holds.
     */
    public void setTimestamp(int lid, long timestamp) {
        if (lid >= timestamps.length) timestamps = Arrays.copyOf(timestamps, Attribute.grow(timestamps.length, lid));
        timestamps[lid] = timestamp;
        verified.set(lid);
        changes++;
    }

    /** The store's timestamp of the version held at the local id (0: unknown). */
    public long timestamp(int lid) { return lid < timestamps.length ? timestamps[lid] : 0; }

    /** The highest timestamp of a version held: the serial a flushed state covers. */
    public long newestTimestamp() {
        long newest = 0;
        for (int lid = active.nextSetBit(0); lid >= 0; lid = active.nextSetBit(lid + 1)) newest = Math.max(newest, timestamp(lid));
        return newest;
    }

    /** Writes since this was created or loaded; a flush is due when this changed. */
    public long changes() { return changes; }

    /**
     * Whether this holds the document in the version the store wrote at this timestamp; if so, marks it as verified
     * for {@link #removeUnverified}.
     */
    public boolean verify(GlobalId gid, long timestamp) {
        Integer lid = localIds.get(gid);
        if (lid == null || timestamp(lid) != timestamp) return false;
        verified.set(lid);
        return true;
    }

    /** Starts a catch-up against the store: nothing is verified yet. */
    public void beginCatchUp() { verified.clear(); }

    /** Ends a catch-up: removes the documents neither verified nor written since it began (the store no longer has them). Returns how many. */
    public int removeUnverified() {
        BitSet stale = (BitSet) active.clone();
        stale.andNot(verified);
        int removed = 0;
        for (int lid = stale.nextSetBit(0); lid >= 0; lid = stale.nextSetBit(lid + 1))
            if (globalIds[lid] != null && remove(globalIds[lid])) removed++;
        verified.clear();
        return removed;
    }

    /** Removes a document; returns whether it was here. */
    public boolean remove(DocumentId id) { return remove(globalId(id)); }

    private boolean remove(GlobalId gid) {
        Integer lid = localIds.remove(gid);
        if (lid == null) return false;
        active.clear(lid);
        searched.clear(lid);
        for (Attribute attribute : attributes.values()) attribute.clear(lid);
        for (TextIndex index : indexes.values()) index.remove(lid);
        documents.clear(lid);
        globalIds[lid] = null;
        if (lid < timestamps.length) timestamps[lid] = 0;
        freeLids.push(lid);
        changes++;
        for (ReferenceAttribute referrer : referrers) referrer.targetChanged(gid, -1);
        return true;
    }

    /** The local id of a global id, or -1. */
    public int localId(GlobalId gid) {
        Integer lid = localIds.get(gid);
        return lid == null ? -1 : lid;
    }

    /**
     * A new copy of the document at the local id, which the caller may modify, or null if there is none.
     * It is decoded from its serialized form, so it costs: read attributes where they will do.
     */
    public Document document(int lid) {
        Document document = documents.get(lid);
        if (document == null) return null;
        for (TensorAttribute vectors : vectorAttributes) {
            Object tensor = vectors.value(lid);
            if (tensor != null) document.setFieldValue(vectors.name(), new TensorFieldValue((com.yahoo.tensor.Tensor) tensor));
        }
        return document;
    }

    /**
     * A new copy of the document at the local id as kept for summaries: without the fields whose cells only
     * their attribute keeps (read those from the attribute), or null if there is none.
     */
    public Document summaryDocument(int lid) { return documents.get(lid); }

    /** The id of the document at the local id, as a summary shows it, without decoding the document; null if there is none. */
    public String summaryDocumentId(int lid) { return documents.documentId(lid); }

    /**
     * The value of a field of the document at the local id for a summary, decoding no other field; null if it has
     * none (or there is no document). A name that is no field of the document type (a struct field's path) is looked
     * up in the whole document.
     */
    public FieldValue summaryFieldValue(int lid, String name) {
        Field field = type.getField(name);
        if (field != null) return documents.fieldValue(lid, field);
        Document document = documents.get(lid);
        return document == null ? null : document.getFieldValue(name);
    }

    public GlobalId globalId(int lid) { return globalIds[lid]; }

    /** A new copy of the document with this id, which the caller may modify, if it is here. */
    public Optional<Document> get(DocumentId id) {
        int lid = localId(globalId(id));
        return lid < 0 ? Optional.empty() : Optional.ofNullable(document(lid));
    }

    /** The bytes of the serialized documents (not the attributes and indexes). */
    public long documentBytes() { return documents.bytes(); }

    /** The local ids of the documents present (a live view: copy it before writes can happen). */
    public BitSet active() { return active; }
    public int documentCount() { return localIds.size(); }

    /**
     * The local ids of the documents a search on this node finds (a live view): all present ones, except for a global
     * type on a node of several, where only the copies this node owns are searched (see the constructor).
     */
    public BitSet searched() { return searched; }

    /** The number of documents a search on this node covers: {@link #searched}'s. */
    public int searchedCount() { return searched == active ? localIds.size() : searched.cardinality(); }

    /** One past the highest local id in use. */
    public int lidLimit() { return nextLid; }

    public Optional<Attribute> attribute(String name) { return Optional.ofNullable(attributes.get(name)); }
    public Optional<TextIndex> index(String name) { return Optional.ofNullable(indexes.get(name)); }
    public Map<String, Attribute> attributes() { return attributes; }
    /** The config of an attribute (also of an imported one): its data type, sort settings etc. */
    public Optional<AttributesConfig.Attribute> attributeConfig(String name) { return Optional.ofNullable(attributeConfigs.get(name)); }

    /** The fields of a fieldset (the container sends fieldset names such as "default" as the index), or the name itself. */
    public List<String> resolveFields(String indexName) {
        return fieldsets.getOrDefault(indexName, List.of(indexName));
    }

    /**
     * The views of a field for juniper (searchsummary's QueryTermFilterFactory): the field and the fieldsets that
     * hold it, whose terms a dynamic summary of it marks.
     */
    public Set<String> views(String field) {
        Set<String> views = new java.util.LinkedHashSet<>();
        views.add(field);
        fieldsets.forEach((name, fields) -> { if (fields.contains(field)) views.add(name); });
        return views;
    }

    /** Writes this index's state (all but imported attributes, which are their targets'), for {@link #readState}. */
    public void writeState(ai.dwell.runtime.format.StateOutput out) throws java.io.IOException {
        int limit = nextLid;
        out.writeInt(limit);
        Attribute.writeBits(out, active);
        byte[] gids = new byte[GLOBAL_ID_SIZE * limit];
        for (int lid = active.nextSetBit(0); lid >= 0; lid = active.nextSetBit(lid + 1))
            System.arraycopy(globalIds[lid].getRawId(), 0, gids, GLOBAL_ID_SIZE * lid, GLOBAL_ID_SIZE);
        out.writeBytes(gids);
        int[] free = freeLids.stream().mapToInt(Integer::intValue).toArray();
        out.writeInt(free.length);
        out.writeInts(free, 0, free.length);
        long[] stamps = Arrays.copyOf(timestamps, limit);
        out.writeLongs(stamps, 0, limit);
        documents.writeState(out, limit);
        List<Attribute> own = attributes.values().stream().filter(attribute -> ! (attribute instanceof ImportedAttribute)).toList();
        out.writeInt(own.size());
        for (Attribute attribute : own) {
            out.writeString(attribute.name());
            attribute.writeState(out, limit);
        }
        out.writeInt(indexes.size());
        for (TextIndex index : indexes.values()) {
            out.writeString(index.field());
            index.writeState(out, limit);
        }
    }

    /**
     * Restores what {@link #writeState} wrote into this new, empty index (made from the same schema: the caller
     * checks that). References to other types are resolved by {@link #resolveReferences} once those are loaded too.
     */
    public void readState(ai.dwell.runtime.format.StateInput in) throws java.io.IOException {
        if (nextLid != 1 || ! localIds.isEmpty()) throw new IllegalStateException("State is loaded into an empty index only");
        int limit = in.readInt();
        if (limit < 1) throw new ai.dwell.runtime.format.CorruptStateException("Local id limit " + limit);
        BitSet present = Attribute.readBits(in);
        if (present.length() > limit || present.get(0)) throw new ai.dwell.runtime.format.CorruptStateException("Active local ids out of range");
        byte[] gids = in.readBytes();
        if (gids.length != GLOBAL_ID_SIZE * limit) throw new ai.dwell.runtime.format.CorruptStateException("Global ids do not fit the local ids");
        globalIds = new GlobalId[Math.max(16, limit)];
        for (int lid = present.nextSetBit(0); lid >= 0; lid = present.nextSetBit(lid + 1)) {
            GlobalId gid = new GlobalId(Arrays.copyOfRange(gids, GLOBAL_ID_SIZE * lid, GLOBAL_ID_SIZE * (lid + 1)));
            globalIds[lid] = gid;
            localIds.put(gid, lid);
        }
        if (localIds.size() != present.cardinality()) throw new ai.dwell.runtime.format.CorruptStateException("Duplicate global ids");
        active.or(present);
        if (searchedHere != null)
            for (int lid = present.nextSetBit(0); lid >= 0; lid = present.nextSetBit(lid + 1))
                if (searchedHere.test(globalIds[lid])) searched.set(lid);
        int[] free = new int[in.readLength(4)];
        in.readInts(free, 0, free.length);
        for (int lid : free) {
            if (lid <= 0 || lid >= limit || present.get(lid)) throw new ai.dwell.runtime.format.CorruptStateException("Free local id " + lid);
            freeLids.addLast(lid);
        }
        timestamps = new long[Math.max(16, limit)];
        in.readLongs(timestamps, 0, limit);
        nextLid = limit;
        documents.readState(in, limit);
        List<Attribute> own = attributes.values().stream().filter(attribute -> ! (attribute instanceof ImportedAttribute)).toList();
        if (in.readInt() != own.size()) throw new ai.dwell.runtime.format.CorruptStateException("Attributes changed");
        for (Attribute attribute : own) {
            String name = in.readString();
            if ( ! name.equals(attribute.name())) throw new ai.dwell.runtime.format.CorruptStateException("Attribute '" + name + "' where '" + attribute.name() + "' was expected");
            attribute.readState(in, limit);
        }
        if (in.readInt() != indexes.size()) throw new ai.dwell.runtime.format.CorruptStateException("Indexes changed");
        for (TextIndex index : indexes.values()) {
            String name = in.readString();
            if ( ! name.equals(index.field())) throw new ai.dwell.runtime.format.CorruptStateException("Index '" + name + "' where '" + index.field() + "' was expected");
            index.readState(in, limit);
        }
        changes = 0;
    }

    /** Resolves this index's references against their (loaded) target indexes, after loading state. */
    public void resolveReferences() {
        for (Attribute attribute : attributes.values())
            if (attribute instanceof ReferenceAttribute reference) reference.resolve();
    }

    private static final int GLOBAL_ID_SIZE = 12;

    public static GlobalId globalId(DocumentId id) { return new GlobalId(id.getGlobalId()); }

    private int allocate() { return freeLids.isEmpty() ? nextLid++ : freeLids.pop(); }

    private Attribute createAttribute(AttributesConfig.Attribute config) {
        boolean fastSearch = config.fastsearch();
        if (config.collectiontype() != AttributesConfig.Attribute.Collectiontype.SINGLE) return multiValueAttribute(config);
        return switch (config.datatype()) {
            case INT8, INT16, INT32 -> new NumericAttribute(config.name(), NumericAttribute.Kind.INT32, fastSearch);
            case BOOL -> new NumericAttribute(config.name(), NumericAttribute.Kind.INT32, fastSearch, true);
            case INT64 -> new NumericAttribute(config.name(), NumericAttribute.Kind.INT64, fastSearch);
            case FLOAT -> new NumericAttribute(config.name(), NumericAttribute.Kind.FLOAT, fastSearch);
            case DOUBLE -> new NumericAttribute(config.name(), NumericAttribute.Kind.DOUBLE, fastSearch);
            case STRING -> new StringAttribute(config.name(), config.match() == AttributesConfig.Attribute.Match.CASED, fastSearch);
            case TENSOR -> tensorAttribute(config);
            case REFERENCE -> new ReferenceAttribute(config.name(), referenceTarget(config.name()));
            case PREDICATE -> new PredicateAttribute(config.name(), config.arity());
            default -> throw new IllegalArgumentException("Attribute '" + config.name() + "' of '" + type.getName() + "': data type " + config.datatype() + " is not supported");
        };
    }

    /** An array or weighted set of strings or numbers. */
    private Attribute multiValueAttribute(AttributesConfig.Attribute config) {
        MultiValueAttribute.Collection collection = config.collectiontype() == AttributesConfig.Attribute.Collectiontype.ARRAY
                                                    ? MultiValueAttribute.Collection.ARRAY : MultiValueAttribute.Collection.WEIGHTED_SET;
        MultiValueAttribute.Elements elements = switch (config.datatype()) {
            case INT8, INT16, INT32, INT64 -> MultiValueAttribute.Elements.INTEGER;
            case FLOAT, DOUBLE -> MultiValueAttribute.Elements.FLOATING;
            case STRING -> MultiValueAttribute.Elements.STRING;
            default -> throw new IllegalArgumentException("Attribute '" + config.name() + "' of '" + type.getName() + "': " + config.collectiontype() +
                                                          " of " + config.datatype() + " is not supported (arrays and weighted sets of strings and numbers are)");
        };
        return new MultiValueAttribute(config.name(), collection, elements, config.match() == AttributesConfig.Attribute.Match.CASED, config.fastsearch());
    }

    /**
     * A tensor attribute; a dense vector attribute also gets a vector index, with an HNSW graph when the schema declares one,
     * and a mixed tensor<T>(m{},x[n]) attribute a multi-vector index (exact search; no graph).
     */
    private static TensorAttribute tensorAttribute(AttributesConfig.Attribute config) {
        TensorType tensorType = TensorType.fromSpec(config.tensortype());
        if (MultiVectorIndex.isMultiVector(tensorType))
            return new TensorAttribute(config.name(), tensorType, new MultiVectorIndex(tensorType, DistanceMetric.of(config)));
        if ( ! TensorAttribute.isVector(tensorType)) return new TensorAttribute(config.name(), tensorType);
        var hnsw = config.index().hnsw();
        NearestNeighborIndex vectors = new NearestNeighborIndex(
                (int) tensorType.dimensions().get(0).size().get().longValue(),
                DistanceMetric.of(config),
                hnsw.enabled() ? new NearestNeighborIndex.HnswSettings(hnsw.maxlinkspernode(), hnsw.neighborstoexploreatinsert()) : null);
        return new TensorAttribute(config.name(), tensorType, vectors);
    }

    private String referenceTarget(String field) {
        if ( ! (type.getField(field).getDataType() instanceof ReferenceDataType reference))
            throw new IllegalArgumentException("Field '" + field + "' of '" + type.getName() + "' is not a reference");
        return reference.getTargetType().getName();
    }

}
