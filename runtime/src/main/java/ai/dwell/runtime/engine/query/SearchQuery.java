package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.engine.sort.SortField;
import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.QueryProperties;

import java.util.List;

/**
 * A search as the content engine runs it: what to match, the rank properties, and the settings of the
 * request. Made from the wire format by {@link ProtobufRequests}.
 *
 * @param documentType  the document type to search, or "" for all of the node's
 * @param rankProfile   the rank profile ("default" when the request names none)
 * @param offset        the first hit to return
 * @param hits          how many hits to return
 * @param timeoutMillis the request's timeout, 0 for none
 * @param traceLevel    0 for no trace
 * @param sorting       the sort spec, empty to order by relevance
 * @param groupingBlob  the serialized groupings, empty for none
 */
public record SearchQuery(String documentType, String rankProfile, int offset, int hits, int timeoutMillis, int traceLevel,
                          List<SortField> sorting, byte[] groupingBlob, QueryItem root, QueryProperties properties) {

    public SearchQuery {
        sorting = List.copyOf(sorting);
    }

    public boolean sorts() { return ! sorting.isEmpty(); }

    public boolean groups() { return groupingBlob.length > 0; }

    /** The end (exclusive) of the hits to return: offset + hits. */
    public long end() { return (long) offset + hits; }

}
