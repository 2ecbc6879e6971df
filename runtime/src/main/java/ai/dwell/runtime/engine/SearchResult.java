package ai.dwell.runtime.engine;

import ai.dwell.runtime.rank.FeatureBlock;

import java.util.List;

/**
 * What one content node answers to a search, before it is put in the wire format (see {@link ProtobufReplies}).
 *
 * @param groupingBlob the serialized groupings, or null when the query did not group
 * @param trace        the search trace as binary Slime, or null when the query asked for none
 * @param hits         the requested page of hits, in order
 */
record SearchResult(long totalHits, boolean degradedByMatchPhase, boolean degradedBySoftTimeout, long coverageDocs, long activeDocs,
                    byte[] groupingBlob, byte[] trace, List<Hit> hits) {

    /**
     * One hit: its global id, relevance, sort blob (null unless the query sorts), and the match features of its
     * rank profile: the block computed for the hits of its document type, and its row there.
     */
    record Hit(byte[] globalId, double relevance, byte[] sortData, FeatureBlock matchFeatures, int row) {}

}
