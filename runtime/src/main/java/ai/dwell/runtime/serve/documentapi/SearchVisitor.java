package ai.dwell.runtime.serve.documentapi;

import ai.dwell.runtime.engine.ContentNode;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.yahoo.document.DocumentId;
import com.yahoo.document.GlobalId;
import com.yahoo.documentapi.messagebus.protocol.QueryResultMessage;
import com.yahoo.slime.BinaryFormat;
import com.yahoo.slime.Inspector;
import com.yahoo.slime.Slime;
import com.yahoo.slime.SlimeUtils;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Answers a streaming query, which Vespa's container sends as a visit with the "searchvisitor" library (its
 * StreamingVisitor): the visit's library parameters are read into the search and docsum requests of proton's
 * protocol, each content node of the cluster runs them over the visited documents alone
 * ({@link ContentNode#streamingSearch}), and its hits and summaries go back as the query result message the
 * container merges (vdslib's SearchResult and DocumentSummary, in their binary format).
 *
 * A library parameter this engine does not honour (sorting, a location) is answered with an error that names it,
 * in the result's errors, and no hits.
 */
final class SearchVisitor {

    /** The library parameters of a streaming query that this engine does not honour, and what they are. */
    private static final Map<String, String> UNSUPPORTED = Map.of("sort", "sorting (order by, sorting=)",
                                                                  "location", "a geo location (pos.ll)");

    private final Map<String, byte[]> parameters;
    private final int timeoutMillis;

    SearchVisitor(Map<String, byte[]> parameters, long timeoutMillis) {
        this.parameters = parameters;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, timeoutMillis));
    }

    /** The query result of each node: its hits among the documents, their summaries, its groupings and errors. */
    List<QueryResultMessage> search(List<ContentNode> nodes, List<DocumentId> documents) {
        Map<GlobalId, DocumentId> ids = new HashMap<>();
        for (DocumentId id : documents) ids.put(new GlobalId(id.getGlobalId()), id);
        List<QueryResultMessage> results = new ArrayList<>();
        for (String parameter : UNSUPPORTED.keySet())
            if (parameters.containsKey(parameter)) {
                results.add(message(0, List.of(), List.of(), new byte[0], List.of(),
                                    List.of("Streaming search: " + UNSUPPORTED.get(parameter) + " is not supported by this content engine")));
                return results;
            }
        SearchProtocol.SearchRequest request;
        try { request = searchRequest(); }
        catch (IllegalArgumentException e) {
            results.add(message(0, List.of(), List.of(), new byte[0], List.of(), List.of(e.getMessage())));
            return results;
        }
        for (ContentNode node : nodes) {
            SearchProtocol.SearchReply reply = node.streamingSearch(request, ids.keySet());
            List<String> errors = new ArrayList<>(reply.getErrorsList().stream().map(SearchProtocol.Error::getMessage).toList());
            List<DocumentId> hitIds = new ArrayList<>();
            for (SearchProtocol.Hit hit : reply.getHitsList()) hitIds.add(ids.get(new GlobalId(hit.getGlobalId().toByteArray())));
            List<byte[]> summaries = hitIds.isEmpty() ? List.of() : summaries(node, reply, ids.keySet(), errors);
            results.add(message(reply.getTotalHitCount(), reply.getHitsList(), hitIds, reply.getGroupingBlob().toByteArray(),
                                reply.getMatchFeatureNamesList(), errors, summaries));
        }
        return results;
    }

    private SearchProtocol.SearchRequest searchRequest() {
        Properties properties = Properties.decode(bytes("rankproperties"));
        int summaryCount = Integer.parseInt(string("summarycount", "10"));
        SearchProtocol.SearchRequest.Builder request = SearchProtocol.SearchRequest.newBuilder()
                .setDocumentType(string("schema", ""))
                .setRankProfile(string("rankprofile", "default"))
                .setOffset(0)
                .setHits(summaryCount)
                .setTimeout(timeoutMillis)
                .setQueryTree(queryTree())
                .addAllRankProperties(properties.strings("rank"))
                .addAllTensorRankProperties(properties.tensors("rank"))
                .addAllFeatureOverrides(properties.strings("feature"))
                .addAllTensorFeatureOverrides(properties.tensors("feature"));
        byte[] aggregation = bytes("aggregation");
        if (aggregation.length > 0) request.setGroupingBlob(ByteString.copyFrom(aggregation));
        return request.build();
    }

    private SearchProtocol.QueryTree queryTree() {
        try { return SearchProtocol.QueryTree.parseFrom(bytes("querytree")); }
        catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("Streaming search: the query tree could not be read: " + e.getMessage());
        }
    }

    /** The summaries of the reply's hits, in hit order, each as the container reads it: the Slime magic id, then the docsum. */
    private List<byte[]> summaries(ContentNode node, SearchProtocol.SearchReply reply, java.util.Set<GlobalId> documents, List<String> errors) {
        SearchProtocol.SearchRequest search = searchRequest();
        Properties properties = Properties.decode(bytes("rankproperties"));
        SearchProtocol.DocsumRequest.Builder request = SearchProtocol.DocsumRequest.newBuilder()
                .setTimeout(timeoutMillis)
                .setDocumentType(search.getDocumentType())
                .setSummaryClass(string("summaryclass", ""))
                .setRankProfile(search.getRankProfile())
                .setQueryTree(search.getQueryTree())
                .addAllRankProperties(search.getRankPropertiesList())
                .addAllTensorRankProperties(search.getTensorRankPropertiesList())
                .addAllFeatureOverrides(search.getFeatureOverridesList())
                .addAllTensorFeatureOverrides(search.getTensorFeatureOverridesList())
                .addAllHighlightTerms(properties.strings("highlightterms"));
        String fields = string("summary-fields", "").trim();
        if ( ! fields.isEmpty()) request.addAllFields(Arrays.asList(fields.split(" +")));
        for (SearchProtocol.Hit hit : reply.getHitsList()) request.addGlobalIds(hit.getGlobalId());
        SearchProtocol.DocsumReply docsums = node.streamingDocsums(request.build(), documents);
        docsums.getErrorsList().forEach(error -> errors.add(error.getMessage()));
        Inspector array = BinaryFormat.decode(docsums.getSlimeSummaries().toByteArray()).get().field("docsums");
        List<byte[]> summaries = new ArrayList<>();
        for (int i = 0; i < reply.getHitsCount(); i++) {
            Slime docsum = new Slime();
            SlimeUtils.copyObject(array.entry(i).field("docsum"), docsum.setObject());
            byte[] slime = BinaryFormat.encode(docsum);
            summaries.add(ByteBuffer.allocate(4 + slime.length).order(ByteOrder.LITTLE_ENDIAN)
                                    .putInt(0x55555555).put(slime).array());
        }
        return summaries;
    }

    private QueryResultMessage message(long totalHits, List<SearchProtocol.Hit> hits, List<DocumentId> ids, byte[] groupingBlob,
                                       List<String> featureNames, List<String> errors) {
        return message(totalHits, hits, ids, groupingBlob, featureNames, errors, List.of());
    }

    private static QueryResultMessage message(long totalHits, List<SearchProtocol.Hit> hits, List<DocumentId> ids, byte[] groupingBlob,
                                              List<String> featureNames, List<String> errors, List<byte[]> summaries) {
        QueryResultMessage message = new QueryResultMessage();
        message.setSearchResult(QueryResultFormat.searchResult(totalHits, hits, ids, groupingBlob, featureNames, errors));
        message.setSummary(QueryResultFormat.documentSummary(ids, summaries));
        return message;
    }

    private byte[] bytes(String name) {
        byte[] value = parameters.get(name);
        return value == null ? new byte[0] : value;
    }

    private String string(String name, String defaultValue) {
        byte[] value = parameters.get(name);
        return value == null ? defaultValue : new String(value, StandardCharsets.UTF_8);
    }

    /**
     * The query's properties as the container encodes them for a streaming query (its QueryEncoder, with fs4's
     * MapEncoder): a count of maps, each a name and its key/value entries, lengths as big-endian ints. A value
     * is a string, or a tensor in Vespa's typed binary format (a query(...) input): told apart by its first byte,
     * which is a format tag below 0x20 for a tensor, and never for text.
     */
    record Properties(Map<String, Map<String, List<byte[]>>> maps) {

        static Properties decode(byte[] encoded) {
            Map<String, Map<String, List<byte[]>>> maps = new LinkedHashMap<>();
            if (encoded.length == 0) return new Properties(maps);
            ByteBuffer buffer = ByteBuffer.wrap(encoded).order(ByteOrder.BIG_ENDIAN);
            int mapCount = buffer.getInt();
            for (int m = 0; m < mapCount; m++) {
                String name = new String(next(buffer), StandardCharsets.UTF_8);
                int entries = buffer.getInt();
                Map<String, List<byte[]>> map = maps.computeIfAbsent(name, k -> new LinkedHashMap<>());
                for (int e = 0; e < entries; e++) {
                    String key = new String(next(buffer), StandardCharsets.UTF_8);
                    map.computeIfAbsent(key, k -> new ArrayList<>()).add(next(buffer));
                }
            }
            return new Properties(maps);
        }

        private static byte[] next(ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.getInt()];
            buffer.get(bytes);
            return bytes;
        }

        static boolean isTensor(byte[] value) { return value.length > 0 && (value[0] & 0xff) < 0x20; }

        List<SearchProtocol.StringProperty> strings(String map) {
            List<SearchProtocol.StringProperty> properties = new ArrayList<>();
            maps.getOrDefault(map, Map.of()).forEach((key, values) -> {
                var property = SearchProtocol.StringProperty.newBuilder().setName(key);
                for (byte[] value : values)
                    if ( ! isTensor(value)) property.addValues(new String(value, StandardCharsets.UTF_8));
                if (property.getValuesCount() > 0) properties.add(property.build());
            });
            return properties;
        }

        List<SearchProtocol.TensorProperty> tensors(String map) {
            List<SearchProtocol.TensorProperty> properties = new ArrayList<>();
            maps.getOrDefault(map, Map.of()).forEach((key, values) -> {
                for (byte[] value : values)
                    if (isTensor(value))
                        properties.add(SearchProtocol.TensorProperty.newBuilder().setName(key).setValue(ByteString.copyFrom(value)).build());
            });
            return properties;
        }

    }

}
