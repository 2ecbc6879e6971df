package ai.dwell.runtime.engine.teaser;

import ai.dwell.runtime.match.query.QueryItem;
import com.yahoo.document.datatypes.FieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.vespa.config.search.summary.JuniperrcConfig;
import ai.dwell.runtime.rank.UnsupportedFeatureException;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The dynamic summaries of one docsum request: the query's keywords per source field, found once (as proton keeps one
 * juniper query handle per field and request), and each document's teaser of a field.
 */
public final class Teasers {

    private final QueryItem root;
    private final Map<String, List<String>> highlightTerms;
    private final Function<String, Set<String>> views;
    private final Set<String> flaggedIndexes;
    private final java.util.function.Predicate<String> indexed;
    private final JuniperrcConfig juniperrc;
    private final Map<String, TeaserKeywords.FieldQuery> queries = new HashMap<>();

    /**
     * For the query (null when the request has none) and highlight terms, with each field's views, and the indexes of
     * the query's terms flagged not to be highlighted or as special tokens, and which fields are index fields (whose
     * stored values carry the linguistics annotations juniper reads), with the schema's juniper settings.
     */
    public Teasers(QueryItem root, Map<String, List<String>> highlightTerms, Set<String> flaggedIndexes, Function<String, Set<String>> views,
                   java.util.function.Predicate<String> indexed, JuniperrcConfig juniperrc) {
        this.indexed = indexed;
        this.juniperrc = juniperrc;
        this.root = root;
        this.highlightTerms = highlightTerms;
        this.flaggedIndexes = flaggedIndexes;
        this.views = views;
    }

    /** The teaser of a document's value of the source field (or of one element of an array of strings), for the summary field of that name. */
    public String of(String summaryField, String sourceField, FieldValue value) {
        if ( ! (value instanceof StringFieldValue string))
            throw new UnsupportedFeatureException("Summary field '" + summaryField + "' (summary: dynamic) of a " + value.getDataType().getName() +
                                                  " field is not supported by this content engine: only of a string field or an array of strings");
        if (indexed.test(sourceField) && string.getSpanTree(com.yahoo.document.annotation.SpanTrees.LINGUISTICS) == null && string.getString().codePoints().anyMatch(Character::isLetterOrDigit))
            throw new UnsupportedFeatureException("Summary field '" + summaryField + "' (summary: dynamic): the document was stored without the " +
                                                  "field's linguistics annotations (fed before this runtime kept them); feed it again");
        TeaserKeywords.FieldQuery query = queries.computeIfAbsent(sourceField, field -> TeaserKeywords.of(root, highlightTerms, flaggedIndexes, views.apply(field)));
        return DynamicTeaser.of(summaryField, string, query, JuniperSettings.of(juniperrc, summaryField));
    }

}
