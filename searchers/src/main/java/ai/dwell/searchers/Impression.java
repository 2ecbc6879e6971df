package ai.dwell.searchers;

import com.yahoo.search.result.FeatureData;

import java.util.List;

/**
 * What one article view showed and how likely it was to show it: the record the learning loop
 * joins with what readers did. {@link ImpressionLog} writes it as one JSON line.
 *
 * @param queryId      the id of this view, also the result's root field query_id
 * @param timeMillis   when it was served, epoch milliseconds
 * @param article      the article viewed
 * @param profile      the rank profile that scored the candidates
 * @param modelVersion the version of the model that ranked them (0: the package constants), or null if none was recorded
 * @param rate         the exploration rate of the logging policy
 * @param temperature  the Plackett-Luce temperature of the logging policy
 * @param candidates   every candidate, best score first, as the slate indexes them
 * @param slate        the order shown and its propensities
 */
public record Impression(String queryId, long timeMillis, String article, String profile, Long modelVersion,
                         double rate, double temperature, List<Candidate> candidates, Slate slate) {

    public Impression {
        candidates = List.copyOf(candidates);
    }

    /**
     * One candidate of an impression.
     *
     * @param id       the document id
     * @param score    the relevance the rank profile gave it
     * @param features its match-features, or null if the hit had none
     */
    public record Candidate(String id, double score, FeatureData features) {}

}
