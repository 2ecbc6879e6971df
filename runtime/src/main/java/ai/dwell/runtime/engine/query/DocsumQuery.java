package ai.dwell.runtime.engine.query;

import ai.dwell.runtime.match.query.QueryItem;
import ai.dwell.runtime.rank.QueryProperties;
import com.yahoo.document.GlobalId;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request for the summaries of some documents, as the content engine serves it: the documents, the
 * summary class ("" for the schema's default) and fields (empty for all), and the query they matched,
 * with its rank profile and properties, from which summary and match features are computed, and whether it asks for
 * the rank profile's rank features (ranking.listFeatures: the rankfeatures field), and the terms to highlight in dynamic
 * summaries beyond the query's (index to terms: the query's presentation.highlight, which a searcher may set), and the
 * indexes of the query's terms flagged not to be highlighted or as special tokens (which juniper treats apart).
 */
public record DocsumQuery(String documentType, String rankProfile, String summaryClass, Set<String> fields,
                          List<GlobalId> globalIds, QueryItem root, QueryProperties properties, boolean dumpFeatures,
                          Map<String, List<String>> highlightTerms, Set<String> flaggedIndexes) {

    public DocsumQuery {
        fields = Set.copyOf(fields);
        globalIds = List.copyOf(globalIds);
        highlightTerms = Map.copyOf(highlightTerms);
        flaggedIndexes = Set.copyOf(flaggedIndexes);
    }

    public DocsumQuery(String documentType, String rankProfile, String summaryClass, Set<String> fields,
                       List<GlobalId> globalIds, QueryItem root, QueryProperties properties, boolean dumpFeatures) {
        this(documentType, rankProfile, summaryClass, fields, globalIds, root, properties, dumpFeatures, Map.of(), Set.of());
    }

}
