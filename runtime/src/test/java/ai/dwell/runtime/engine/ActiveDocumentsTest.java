package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.datatypes.FloatFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.SubstringItem;
import com.yahoo.search.Query;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A search's active and covered documents are those of the document type it searches, as proton answers from the
 * type's document database alone (sample-apps' workshop-ecommerce: `select * from user` reports its 10 users, not
 * the 30 documents of its three types); a search of no type counts every type's.
 */
public class ActiveDocumentsTest {

    private static ContentNode node;
    private static IndexingScripts indexing;
    private static DocumentTypeManager types;

    @BeforeAll
    static void setUp() {
        ContentClusterConfig cluster = DwellPackage.cluster();
        indexing = DwellPackage.indexing(cluster);
        types = indexing.documentTypes();
        node = new ContentNode(cluster, cluster.distributionKeys().get(0));
        for (int i = 0; i < 3; i++) {
            Document author = new Document(types.getDocumentType("author"), new DocumentId("id:dwell:author::a" + i));
            author.setFieldValue("author_id", new StringFieldValue("a" + i));
            author.setFieldValue("reputation", new FloatFieldValue(0.5f));
            author.setFieldValue("comment_count", new IntegerFieldValue(1));
            node.put(indexing.process(author));
        }
        for (int i = 0; i < 5; i++) {
            Document comment = new Document(types.getDocumentType("comment"), new DocumentId("id:dwell:comment::c" + i));
            comment.setFieldValue("article_id", new StringFieldValue("x"));
            comment.setFieldValue("created_at", new LongFieldValue(1_800_000_000L));
            node.put(comment);
        }
    }

    @AfterAll
    static void tearDown() { node.close(); }

    @Test
    void aSearchOfOneTypeCountsThatTypesDocuments() {
        long authorsHere = node.activeDocumentsByType().get("author"); // a global type: the copies this node owns
        SearchProtocol.SearchReply authors = search("author", "author");
        assertEquals(0, authors.getErrorsCount(), authors.getErrorsList().toString());
        assertEquals(authorsHere, authors.getTotalHitCount());
        assertEquals(authorsHere, authors.getActiveDocs());
        assertEquals(authorsHere, authors.getCoverageDocs());
        SearchProtocol.SearchReply comments = search("comment", "comment");
        assertEquals(5, comments.getTotalHitCount());
        assertEquals(5, comments.getActiveDocs());
        assertEquals(5, comments.getCoverageDocs());
    }

    @Test
    void aSearchOfNoTypeCountsEveryTypesDocuments() {
        long everyType = node.activeDocumentsByType().get("author") + 5;
        SearchProtocol.SearchReply all = search("comment", null);
        assertEquals(0, all.getErrorsCount(), all.getErrorsList().toString());
        assertEquals(everyType, all.getActiveDocs());
        assertEquals(everyType, all.getCoverageDocs());
        assertEquals(everyType, node.activeDocuments(), "what a ping answers: every type's");
    }

    private static SearchProtocol.SearchReply search(String type, String restrict) {
        SubstringItem all = new SubstringItem(type); // what the container makes of sddocname:type
        all.setIndexName("[documentmetastore]");
        Query query = new Query("?ranking=unranked");
        query.getModel().getQueryTree().setRoot(all);
        if (restrict != null) query.getModel().setDocumentDb(restrict); // as the container's ClusterSearcher sends one request per type
        return node.search(DwellPackage.request(query, 10));
    }

}
