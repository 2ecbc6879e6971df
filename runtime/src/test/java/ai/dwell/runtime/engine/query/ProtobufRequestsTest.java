package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.engine.sort.SortField;
import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.DocumentId;
import com.yahoo.document.GlobalId;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Search and docsum requests as the engine's SearchQuery and DocsumQuery: settings, properties and overrides, sorting, the tree. */
public class ProtobufRequestsTest {

    @Test
    void searchSettings() {
        SearchProtocol.SearchRequest request = SearchProtocol.SearchRequest.newBuilder()
                .setDocumentType("comment").setRankProfile("freshness").setOffset(5).setHits(20).setTimeout(300).setTraceLevel(2)
                .addSorting(SearchProtocol.SortField.newBuilder().setField("lowercase(author)").setAscending(true))
                .addSorting(SearchProtocol.SortField.newBuilder().setField("[rank]").setAscending(false))
                .setGroupingBlob(ByteString.copyFrom(new byte[] { 0, 0, 0, 0 }))
                .setQueryTree(SearchProtocol.QueryTree.newBuilder().setRoot(SearchProtocol.QueryTreeItem.newBuilder()
                        .setItemFalse(SearchProtocol.ItemFalse.getDefaultInstance())))
                .build();
        SearchQuery query = ProtobufRequests.search(request);
        assertEquals("comment", query.documentType());
        assertEquals("freshness", query.rankProfile());
        assertEquals(5, query.offset());
        assertEquals(20, query.hits());
        assertEquals(25, query.end());
        assertEquals(300, query.timeoutMillis());
        assertEquals(2, query.traceLevel());
        assertEquals(List.of(new SortField("author", true, true, SortField.MissingPolicy.DEFAULT, ""),
                             new SortField("[rank]", false, false, SortField.MissingPolicy.DEFAULT, "")), query.sorting());
        assertTrue(query.sorts());
        assertTrue(query.groups());
        assertArrayEquals(new byte[] { 0, 0, 0, 0 }, query.groupingBlob());
        assertEquals(new QueryItem.False(), query.root());
    }

    @Test
    void anEmptyRequestSearchesTheDefaultProfileOfAllTypes() {
        SearchQuery query = ProtobufRequests.search(SearchProtocol.SearchRequest.getDefaultInstance());
        assertEquals("", query.documentType());
        assertEquals("default", query.rankProfile());
        assertFalse(query.sorts());
        assertFalse(query.groups());
        assertEquals(new QueryItem.True(), query.root());
    }

    @Test
    void featureOverridesReplaceRankPropertiesOfTheSameName() {
        byte[] tensor = { 1, 2, 3 }, overridden = { 4 };
        SearchProtocol.SearchRequest request = SearchProtocol.SearchRequest.newBuilder()
                .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("vespa.now").addValues("100"))
                .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("x").addValues("1"))
                .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("no-value"))
                .addFeatureOverrides(SearchProtocol.StringProperty.newBuilder().setName("x").addValues("2"))
                .addTensorRankProperties(SearchProtocol.TensorProperty.newBuilder().setName("query(q)").setValue(ByteString.copyFrom(tensor)))
                .addTensorRankProperties(SearchProtocol.TensorProperty.newBuilder().setName("query(w)").setValue(ByteString.copyFrom(tensor)))
                .addTensorFeatureOverrides(SearchProtocol.TensorProperty.newBuilder().setName("query(w)").setValue(ByteString.copyFrom(overridden)))
                .build();
        var properties = ProtobufRequests.search(request).properties();
        assertEquals(Optional.of("100"), properties.string("vespa.now"));
        assertEquals(Optional.of("2"), properties.string("x"));
        assertFalse(properties.has("no-value"));
        assertTrue(properties.has("query(q)"));
    }

    @Test
    void aQueryTreeBlobAloneIsRefused() {
        SearchProtocol.SearchRequest request = SearchProtocol.SearchRequest.newBuilder().setQueryTreeBlob(ByteString.copyFrom(new byte[] { 1 })).build();
        assertEquals("Only the protobuf query_tree is supported, not query_tree_blob",
                     assertThrows(UnsupportedFeatureException.class, () -> ProtobufRequests.search(request)).getMessage());
    }

    @Test
    void anUnsupportedSortFunctionIsRefused() {
        SearchProtocol.SearchRequest request = SearchProtocol.SearchRequest.newBuilder()
                .addSorting(SearchProtocol.SortField.newBuilder().setField("uca(author,sv)")).build();
        assertThrows(UnsupportedFeatureException.class, () -> ProtobufRequests.search(request));
    }

    @Test
    void docsumSettings() {
        GlobalId first = new GlobalId(new DocumentId("id:dwell:comment::c1").getGlobalId());
        GlobalId second = new GlobalId(new DocumentId("id:dwell:comment::c2").getGlobalId());
        SearchProtocol.DocsumRequest request = SearchProtocol.DocsumRequest.newBuilder()
                .setDocumentType("comment").setSummaryClass("short").addFields("text").addFields("author")
                .addGlobalIds(ByteString.copyFrom(first.getRawId())).addGlobalIds(ByteString.copyFrom(second.getRawId()))
                .addRankProperties(SearchProtocol.StringProperty.newBuilder().setName("vespa.now").addValues("7"))
                .build();
        DocsumQuery query = ProtobufRequests.docsum(request);
        assertEquals("comment", query.documentType());
        assertEquals("default", query.rankProfile());
        assertEquals("short", query.summaryClass());
        assertEquals(Set.of("text", "author"), query.fields());
        assertEquals(List.of(first, second), query.globalIds());
        assertEquals(Optional.of("7"), query.properties().string("vespa.now"));
        assertEquals(new QueryItem.True(), query.root());
    }

}
