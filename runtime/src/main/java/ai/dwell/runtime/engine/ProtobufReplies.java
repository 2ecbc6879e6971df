package ai.dwell.runtime.engine;

import ai.dwell.runtime.format.TensorBytes;
import ai.dwell.runtime.rank.FeatureBlock;
import ai.dwell.runtime.rank.RankProgram;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;

import java.util.List;

/** The engine's edge, outwards: puts what a content node answers into the replies of proton's protocol. */
final class ProtobufReplies {

    private ProtobufReplies() {}

    static SearchProtocol.MonitorReply ping(int distributionKey, long activeDocuments) {
        return SearchProtocol.MonitorReply.newBuilder().setOnline(true).setDistributionKey(distributionKey)
                                          .setActiveDocs(activeDocuments).setTargetActiveDocs(activeDocuments).setIsBlockingWrites(false).build();
    }

    /** A search that failed: the message, and nothing covered. */
    static SearchProtocol.SearchReply searchError(String message, long activeDocuments) {
        return SearchProtocol.SearchReply.newBuilder().addErrors(SearchProtocol.Error.newBuilder().setMessage(message))
                                         .setCoverageDocs(0).setActiveDocs(activeDocuments).setTargetActiveDocs(activeDocuments).build();
    }

    /** The reply to a search. */
    static SearchProtocol.SearchReply search(SearchResult result) {
        var reply = SearchProtocol.SearchReply.newBuilder().setTotalHitCount(result.totalHits())
                                              .setDegradedByMatchPhase(result.degradedByMatchPhase())
                                              .setDegradedBySoftTimeout(result.degradedBySoftTimeout())
                                              .setCoverageDocs(result.coverageDocs())
                                              .setActiveDocs(result.activeDocs()).setTargetActiveDocs(result.activeDocs());
        if (result.groupingBlob() != null) reply.setGroupingBlob(ByteString.copyFrom(result.groupingBlob()));
        if (result.trace() != null) reply.setSlimeTrace(ByteString.copyFrom(result.trace()));
        boolean featureNamesSet = false;
        for (SearchResult.Hit hit : result.hits()) {
            var protoHit = SearchProtocol.Hit.newBuilder().setGlobalId(ByteString.copyFrom(hit.globalId())).setRelevance(hit.relevance());
            if (hit.sortData() != null) protoHit.setSortData(ByteString.copyFrom(hit.sortData()));
            FeatureBlock features = hit.matchFeatures();
            if ( ! features.features().isEmpty()) {
                if ( ! featureNamesSet) {
                    reply.addAllMatchFeatureNames(features.features().stream().map(RankProgram.OutputFeature::name).toList());
                    featureNamesSet = true;
                }
                for (int f = 0; f < features.features().size(); f++) protoHit.addMatchFeatures(feature(features, f, hit.row()));
            }
            reply.addHits(protoHit);
        }
        return reply.build();
    }

    private static SearchProtocol.Feature feature(FeatureBlock features, int feature, int row) {
        if (features.isNumber(feature)) return SearchProtocol.Feature.newBuilder().setNumber(features.number(feature, row)).build();
        return SearchProtocol.Feature.newBuilder().setTensor(ByteString.copyFrom(TensorBytes.encode(features.tensor(feature, row)))).build();
    }

    /** The reply to a docsum request: the summaries, as binary Slime. */
    static SearchProtocol.DocsumReply docsums(byte[] slimeSummaries) {
        return SearchProtocol.DocsumReply.newBuilder().setSlimeSummaries(ByteString.copyFrom(slimeSummaries)).build();
    }

}
