package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.match.RankTerm;
import com.yahoo.searchlib.rankingexpression.evaluation.TensorValue;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.List;

/**
 * The features of a content node's index statistics, the same for every document of a query (computed once, when the
 * query's program is compiled), as proton's blueprints give them:
 * <ul>
 *   <li>averageFieldLength(field) (AverageFieldLengthBlueprint): the average length of the index field over this node's
 *       documents that have it, what bm25(field) divides by; never global, and not the profile's
 *       bm25(field).averageFieldLength;
 *   <li>num_docs_indexed (NumDocsIndexedBlueprint): this node's documents of the type (at least 1), the total bm25
 *       counts when the request gives no document frequency;
 *   <li>queryTermDocumentFrequency(field) (QueryTermDocumentFrequencyBlueprint): a tensor&lt;float&gt;(term{}) with a cell
 *       for each ranked term searching the field, labeled by the term's index in the query: the document frequency the
 *       request gives the term (vespa.term.&lt;id&gt;.docfreq), else the term's on this node, which proton propagates to
 *       every field the term searches: the documents its fields match, summed over those fields, at most the node's
 *       documents.
 * </ul>
 */
final class IndexStatisticsFeatures {

    static final TensorType TERM_FREQUENCIES = TensorType.fromSpec("tensor<float>(term{})");

    private IndexStatisticsFeatures() {}

    static Node averageFieldLength(FeatureName feature, DocumentIndex index) {
        if (feature.arguments().size() != 1 || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': averageFieldLength takes an index field and has one output");
        return new ScalarNode.Constant(TermFieldFeatures.requireIndexField(feature, index, feature.argument()).averageFieldLength());
    }

    static Node numDocsIndexed(FeatureName feature, DocumentIndex index) {
        if ( ! feature.arguments().isEmpty() || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': num_docs_indexed takes no arguments and has one output");
        return new ScalarNode.Constant(Math.max(1, index.documentCount()));
    }

    static Node queryTermDocumentFrequency(FeatureName feature, DocumentIndex index, List<RankTerm> terms, QueryProperties query) {
        if (feature.arguments().size() != 1 || feature.output() != null && ! feature.output().equals("out"))
            throw new UnsupportedFeatureException("feature '" + feature + "': queryTermDocumentFrequency takes an index field and has one output");
        String field = feature.argument();
        TermFieldFeatures.requireIndexField(feature, index, field);
        Tensor.Builder cells = Tensor.Builder.of(TERM_FREQUENCIES);
        for (int t = 0; t < terms.size(); t++) {
            RankTerm term = terms.get(t);
            if (term.fields().stream().noneMatch(f -> f.name().equals(field))) continue;
            cells.cell().label("term", String.valueOf(t)).value(documentFrequency(term, query));
        }
        return new ConstantNode(new TensorValue(cells.build()));
    }

    /** The frequency of vespa.term.&lt;id&gt;.docfreq (frequency and count) where the request gives it, else the term's own. */
    static double documentFrequency(RankTerm term, QueryProperties query) {
        if (term.uniqueId() != 0) {
            List<String> given = query.values("vespa.term." + term.uniqueId() + ".docfreq");
            if (given.size() == 2) {
                try {
                    return Long.parseLong(given.get(0).trim());
                }
                catch (NumberFormatException e) {
                    return 0; // as proton's parsing gives
                }
            }
        }
        return term.matchingDocuments();
    }

}
