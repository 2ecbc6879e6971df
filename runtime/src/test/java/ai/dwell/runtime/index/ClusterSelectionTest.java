package ai.dwell.runtime.index;

import com.yahoo.document.DataType;
import com.yahoo.document.Document;
import com.yahoo.document.DocumentType;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.datatypes.BoolFieldValue;
import com.yahoo.document.update.FieldUpdate;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A content cluster's routing selector as Vespa's config model writes it, applied to puts and updates as Vespa's route selector. */
class ClusterSelectionTest {

    private final DocumentType item = new DocumentType("item");
    {
        item.addField("hot", DataType.BOOL);
    }

    private Document item(Boolean hot) {
        Document document = new Document(item, "id:test:item::" + hot);
        if (hot != null) document.setFieldValue("hot", new BoolFieldValue(hot));
        return document;
    }

    @Test
    void aClusterWithoutASelectionStoresEveryDocumentOfItsTypes() {
        ClusterSelection all = ClusterSelection.of("(item) OR (other)");
        assertFalse(all.isSelective());
        assertTrue(all.accepts(item(null)));
        assertTrue(all.accepts(item(false)));
    }

    @Test
    void aSelectionAcceptsThePutsItSelects() {
        ClusterSelection hot = ClusterSelection.of("(item AND (item.hot==true))");
        assertTrue(hot.isSelective());
        assertTrue(hot.accepts(item(true)));
        assertFalse(hot.accepts(item(false)));
        assertFalse(hot.accepts(item(null)), "a missing field is not true");
    }

    @Test
    void anUpdateGoesWhereTheSelectionDoesNotRejectIt() {
        ClusterSelection hot = ClusterSelection.of("(item AND (item.hot==true))");
        DocumentUpdate update = new DocumentUpdate(item, "id:test:item::x");
        update.addFieldUpdate(FieldUpdate.createAssign(item.getField("hot"), new BoolFieldValue(false)));
        assertTrue(hot.mayHold(update), "a field's value is unknown to an update: not rejected");
        assertFalse(ClusterSelection.of("(item AND (id.namespace=='other'))").mayHold(update), "its id is known: rejected");
    }

    @Test
    void anUnparsableSelectionIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterSelection.of("(item AND (item.hot=====))"));
        assertTrue(e.getMessage().contains("item.hot====="), e.getMessage());
    }

}
