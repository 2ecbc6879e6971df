package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.engine.sort.SortField;
import ai.dwell.runtime.rank.QueryProperties;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.GlobalId;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The engine's edge: translates search and docsum requests of proton's protocol into {@link SearchQuery} and
 * {@link DocsumQuery}, once, so that nothing behind it reads the wire format.
 */
public final class ProtobufRequests {

    private ProtobufRequests() {}

    public static SearchQuery search(SearchProtocol.SearchRequest request) {
        if ( ! request.getQueryTreeBlob().isEmpty() && ! request.hasQueryTree())
            throw new UnsupportedFeatureException("Only the protobuf query_tree is supported, not query_tree_blob");
        QueryProperties properties = properties(request);
        List<SortField> sorting = sorting(request.getSortingList());
        return new SearchQuery(request.getDocumentType(), profile(request.getRankProfile()), request.getOffset(), request.getHits(),
                               request.getTimeout(), request.getTraceLevel(), sorting, request.getGroupingBlob().toByteArray(),
                               ProtobufQueryTree.translate(request.getQueryTree()), properties);
    }

    public static DocsumQuery docsum(SearchProtocol.DocsumRequest request) {
        List<GlobalId> globalIds = new ArrayList<>(request.getGlobalIdsCount());
        for (ByteString rawGid : request.getGlobalIdsList()) globalIds.add(new GlobalId(rawGid.toByteArray()));
        return new DocsumQuery(request.getDocumentType(), profile(request.getRankProfile()), request.getSummaryClass(),
                               new HashSet<>(request.getFieldsList()), globalIds,
                               ProtobufQueryTree.translate(request.getQueryTree()), properties(request), request.getDumpFeatures(),
                               highlightTerms(request.getHighlightTermsList()), flaggedIndexes(request.getQueryTree()));
    }

    /** The indexes of the terms in the tree that are flagged not to be highlighted, or as special tokens. */
    static Set<String> flaggedIndexes(com.google.protobuf.MessageOrBuilder message) {
        Set<String> indexes = new HashSet<>();
        collectFlagged(message, indexes);
        return indexes;
    }

    private static void collectFlagged(com.google.protobuf.MessageOrBuilder message, Set<String> indexes) {
        if (message instanceof SearchProtocol.TermItemProperties properties) {
            if (properties.getDoNotHighlight() || properties.getIsSpecialToken()) indexes.add(properties.getIndex());
            return;
        }
        for (var field : message.getAllFields().entrySet()) {
            if (field.getKey().getJavaType() != com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) continue;
            if (field.getValue() instanceof List<?> list) list.forEach(element -> collectFlagged((com.google.protobuf.MessageOrBuilder) element, indexes));
            else collectFlagged((com.google.protobuf.MessageOrBuilder) field.getValue(), indexes);
        }
    }

    /** The highlight terms of a docsum request: per index, its terms. */
    static Map<String, List<String>> highlightTerms(List<SearchProtocol.StringProperty> properties) {
        Map<String, List<String>> terms = new LinkedHashMap<>();
        for (var property : properties)
            terms.computeIfAbsent(property.getName(), k -> new ArrayList<>()).addAll(property.getValuesList());
        return terms;
    }

    /** The rank properties and feature overrides of a search request; an override replaces a property of the same name. */
    public static QueryProperties properties(SearchProtocol.SearchRequest request) {
        return properties(request.getRankPropertiesList(), request.getTensorRankPropertiesList(),
                          request.getFeatureOverridesList(), request.getTensorFeatureOverridesList());
    }

    public static QueryProperties properties(SearchProtocol.DocsumRequest request) {
        return properties(request.getRankPropertiesList(), request.getTensorRankPropertiesList(),
                          request.getFeatureOverridesList(), request.getTensorFeatureOverridesList());
    }

    public static QueryProperties properties(List<SearchProtocol.StringProperty> rankProperties, List<SearchProtocol.TensorProperty> tensorRankProperties,
                                             List<SearchProtocol.StringProperty> featureOverrides, List<SearchProtocol.TensorProperty> tensorFeatureOverrides) {
        Map<String, String> strings = new LinkedHashMap<>();
        Map<String, List<String>> allValues = new LinkedHashMap<>();
        Map<String, byte[]> tensors = new LinkedHashMap<>();
        for (var property : rankProperties) if (property.getValuesCount() > 0) put(property, strings, allValues);
        for (var property : featureOverrides) if (property.getValuesCount() > 0) put(property, strings, allValues);
        for (var property : tensorRankProperties) tensors.put(property.getName(), property.getValue().toByteArray());
        for (var property : tensorFeatureOverrides) tensors.put(property.getName(), property.getValue().toByteArray());
        return new QueryProperties(strings, allValues, tensors);
    }

    /** A property's first value, and all of them where it has several (an override replaces a property's values). */
    private static void put(SearchProtocol.StringProperty property, Map<String, String> strings, Map<String, List<String>> allValues) {
        strings.put(property.getName(), property.getValues(0));
        if (property.getValuesCount() > 1) allValues.put(property.getName(), List.copyOf(property.getValuesList()));
        else allValues.remove(property.getName());
    }

    /** The sort fields of a request, in order. */
    public static List<SortField> sorting(List<SearchProtocol.SortField> fields) {
        List<SortField> result = new ArrayList<>(fields.size());
        for (var field : fields) result.add(SortField.parse(field.getField(), field.getAscending()));
        return result;
    }

    private static String profile(String name) { return name.isEmpty() ? "default" : name; }

}
