package ai.dwell.runtime.engine;

import ai.dwell.runtime.index.ContentClusterConfig;
import ai.dwell.runtime.index.IndexingScripts;
import ai.dwell.runtime.rank.DwellPackage;
import ai.dwell.runtime.serve.deploy.ContentClusterConfigs;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentId;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.prelude.query.WordItem;
import com.yahoo.search.Query;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * attribute(name) of a string attribute, as proton ranks it: the hash of the value (of "" where none is set), equal
 * to the hash a string literal gets, so that attribute(author_id) == "bob" compares them. The reference hash is
 * computed here from xxh3 and the bit rule Vespa documents for it.
 */
public class StringAttributeFeatureTest {

    private static final String[] AUTHORS = { "bob", "Bob", "ann", "", "bob2", "\u00e9t\u00e9" };

    @TempDir Path tmp;

    @Test
    void aStringAttributeRanksAsTheHashOfItsValue() {
        Path copy = DwellPackage.copyWithProfiles(tmp, """

                    rank-profile by_author inherits default {
                        first-phase {
                            expression: if(attribute(author_id) == "bob", 10, 1)
                        }
                        match-features: attribute(author_id)
                    }
                }
                """);
        ContentClusterConfig cluster = ContentClusterConfigs.from(DwellPackage.model(copy), "dwell", copy);
        IndexingScripts indexing = DwellPackage.indexing(cluster);
        Map<ByteString, String> authorOf = new HashMap<>();
        try (ContentNode node = new ContentNode(cluster, 0)) {
            DocumentType type = indexing.documentTypes().getDocumentType("comment");
            for (int i = 0; i < AUTHORS.length; i++) {
                Document comment = new Document(type, new DocumentId("id:dwell:comment::c" + i));
                comment.setFieldValue("comment_id", new StringFieldValue("c" + i));
                comment.setFieldValue("article_id", new StringFieldValue("a1"));
                if ( ! AUTHORS[i].isEmpty()) comment.setFieldValue("author_id", new StringFieldValue(AUTHORS[i]));
                node.put(indexing.process(comment));
                authorOf.put(ByteString.copyFrom(comment.getId().getGlobalId()), AUTHORS[i]);
            }
            Query query = new Query("?ranking=by_author");
            query.getModel().getQueryTree().setRoot(new WordItem("a1", "article_id"));
            SearchProtocol.SearchReply reply = node.search(DwellPackage.request(query, 100));
            assertEquals(0, reply.getErrorsCount(), reply.getErrorsList().toString());
            assertEquals(AUTHORS.length, reply.getHitsCount());
            int feature = reply.getMatchFeatureNamesList().indexOf("attribute(author_id)");
            assertTrue(feature >= 0, reply.getMatchFeatureNamesList().toString());
            for (SearchProtocol.Hit hit : reply.getHitsList()) {
                String author = authorOf.get(hit.getGlobalId());
                assertEquals(author.equals("bob") ? 10 : 1, hit.getRelevance(), author); // the hash of the value as written: "Bob" is not "bob"
                assertEquals(hash(author), hit.getMatchFeatures(feature).getNumber(), author);
            }
        }
    }

    /** xxh3 of the UTF-8 bytes as the bits of a double; an all-ones exponent (infinity, NaN) gets its lowest bit cleared. */
    private static double hash(String value) {
        long bits = LongHashFunction.xx3().hashBytes(value.getBytes(StandardCharsets.UTF_8));
        long exponent = 0x7ff0000000000000L;
        if ((bits & exponent) == exponent) bits &= ~(1L << 52);
        return Double.longBitsToDouble(bits);
    }

}
