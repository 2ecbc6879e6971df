package ai.dwell.runtime.index;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentUpdate;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.document.select.Result;
import com.yahoo.document.select.parser.ParseException;

/**
 * Which documents a content cluster stores: Vespa's routing selector of the cluster (from its {@code <documents>}: each
 * type, with the {@code selection} of its {@code <document>} where it has one), applied as Vespa's document route
 * selector policy applies it to writes: a put goes to a cluster whose selector accepts the document, an update or a
 * remove to one whose selector does not reject it. A cluster without a selection stores every document of its types.
 */
public final class ClusterSelection {

    private static final ClusterSelection ALL = new ClusterSelection("", null);

    private final String expression;
    private final DocumentSelector selector; // null: every document of the cluster's types

    private ClusterSelection(String expression, DocumentSelector selector) {
        this.expression = expression;
        this.selector = selector;
    }

    /** Every document of the cluster's types. */
    public static ClusterSelection all() { return ALL; }

    /**
     * The cluster's routing selector as Vespa's config model builds it (ContentCluster.getRoutingSelector():
     * "(type)" or "(type AND (selection))" per document type, joined by " OR "); one without any selection stores
     * every document of its types.
     */
    public static ClusterSelection of(String routingSelector) {
        if (routingSelector == null || ! routingSelector.contains(" AND (")) return ALL;
        try {
            return new ClusterSelection(routingSelector, new DocumentSelector(routingSelector));
        }
        catch (ParseException e) {
            throw new IllegalArgumentException("Could not parse the document selection '" + routingSelector + "': " + e.getMessage(), e);
        }
    }

    /** Whether a selection narrows the cluster to some of its types' documents. */
    public boolean isSelective() { return selector != null; }

    /** Whether a put of this document is stored in the cluster. */
    public boolean accepts(Document document) {
        return selector == null || selector.accepts(new DocumentPut(document)) == Result.TRUE;
    }

    /** Whether an update is routed to the cluster: unless its selector rejects the update itself. */
    public boolean mayHold(DocumentUpdate update) {
        return selector == null || selector.accepts(update) != Result.FALSE;
    }

    @Override
    public String toString() { return selector == null ? "all documents of its types" : expression; }

}
