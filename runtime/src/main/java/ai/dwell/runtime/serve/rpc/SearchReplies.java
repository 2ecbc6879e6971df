package ai.dwell.runtime.serve.rpc;

import ai.dwell.runtime.format.TensorBytes;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.tensor.Tensor;

/**
 * Parts of a {@link SearchProtocol.SearchReply} as the container's dispatcher reads them.
 * Use with the reply's builder, e.g.
 * <pre>
 * SearchProtocol.SearchReply.newBuilder()
 *         .setTotalHitCount(total)
 *         .setCoverageDocs(searched).setActiveDocs(active).setTargetActiveDocs(active)
 *         .addMatchFeatureNames("attribute(year)")
 *         .addHits(SearchReplies.hit(gid, 0.9).addMatchFeatures(SearchReplies.feature(1977)))
 *         .build();
 * </pre>
 */
public final class SearchReplies {

    private SearchReplies() { }

    /** Returns a hit of the document with the given 12-byte global id ({@code DocumentId.getGlobalId()}), with the given relevance. */
    public static SearchProtocol.Hit.Builder hit(byte[] globalId, double relevance) {
        return SearchProtocol.Hit.newBuilder()
                                 .setGlobalId(ByteString.copyFrom(globalId))
                                 .setRelevance(relevance);
    }

    /** Returns a match feature value which is a number. */
    public static SearchProtocol.Feature feature(double value) {
        return SearchProtocol.Feature.newBuilder().setNumber(value).build();
    }

    /** Returns a match feature value which is a tensor. */
    public static SearchProtocol.Feature feature(Tensor value) {
        return SearchProtocol.Feature.newBuilder().setTensor(ByteString.copyFrom(TensorBytes.encode(value))).build();
    }

    /** Returns a reply with no hits and the given error, which the container adds to the result's errors. */
    public static SearchProtocol.SearchReply error(String message) {
        return SearchProtocol.SearchReply.newBuilder()
                                         .addErrors(SearchProtocol.Error.newBuilder().setMessage(message))
                                         .build();
    }

}
