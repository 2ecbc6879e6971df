package ai.dwell.runtime.serve.rpc;

import ai.dwell.runtime.engine.SearchBackend;
import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.google.protobuf.ByteString;
import com.yahoo.document.DocumentId;
import com.yahoo.slime.Cursor;
import com.yahoo.tensor.Tensor;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** A content node holding two music documents, which always match. Failures can be switched on. */
class FixedBackend implements SearchBackend {

    static final DocumentId A = new DocumentId("id:test:music::a");
    static final DocumentId B = new DocumentId("id:test:music::b");
    static final Tensor EMBEDDING = Tensor.from("tensor(x[2]):[0.5,2.0]");

    private record Music(DocumentId id, String title, int year) { }

    private static final Map<ByteString, Music> documents = Map.of(gid(A), new Music(A, "Foo Fighters", 1995),
                                                                   gid(B), new Music(B, "Foo Manchu", 1997));

    final AtomicInteger pings = new AtomicInteger();
    volatile int distributionKey = 0;
    volatile RuntimeException pingFailure, searchFailure, docsumFailure;
    volatile Error searchError, docsumError; // what a thread of the node could throw besides exceptions
    volatile SearchProtocol.SearchRequest lastSearch;
    volatile SearchProtocol.DocsumRequest lastDocsums;

    static ByteString gid(DocumentId id) {
        return ByteString.copyFrom(id.getGlobalId());
    }

    @Override
    public SearchProtocol.MonitorReply ping(SearchProtocol.MonitorRequest request) {
        pings.incrementAndGet();
        if (pingFailure != null) throw pingFailure;
        return SearchProtocol.MonitorReply.newBuilder()
                                          .setDistributionKey(distributionKey)
                                          .setOnline(true)
                                          .setActiveDocs(documents.size())
                                          .setTargetActiveDocs(documents.size())
                                          .build();
    }

    @Override
    public SearchProtocol.SearchReply search(SearchProtocol.SearchRequest request) {
        lastSearch = request;
        if (searchFailure != null) throw searchFailure;
        if (searchError != null) throw searchError;
        return SearchProtocol.SearchReply.newBuilder()
                                         .setTotalHitCount(5)
                                         .setCoverageDocs(5).setActiveDocs(5).setTargetActiveDocs(5)
                                         .addMatchFeatureNames("attribute(year)")
                                         .addMatchFeatureNames("embedding")
                                         .addHits(SearchReplies.hit(A.getGlobalId(), 0.9)
                                                               .addMatchFeatures(SearchReplies.feature(1995))
                                                               .addMatchFeatures(SearchReplies.feature(EMBEDDING)))
                                         .addHits(SearchReplies.hit(B.getGlobalId(), 0.4)
                                                               .addMatchFeatures(SearchReplies.feature(1997))
                                                               .addMatchFeatures(SearchReplies.feature(EMBEDDING)))
                                         .build();
    }

    @Override
    public SearchProtocol.DocsumReply getDocsums(SearchProtocol.DocsumRequest request) {
        lastDocsums = request;
        if (docsumFailure != null) throw docsumFailure;
        if (docsumError != null) throw docsumError;
        DocsumSlime docsums = new DocsumSlime();
        for (ByteString gid : request.getGlobalIdsList()) {
            Music music = documents.get(gid);
            if (music == null) {
                docsums.addMissing();
                continue;
            }
            Cursor docsum = docsums.addDocsum();
            docsum.setString("documentid", music.id().toString());
            docsum.setString("title", music.title());
            docsum.setLong("year", music.year());
            DocsumSlime.setTensor(docsum, "embedding", EMBEDDING);
            Cursor summaryFeatures = docsum.setObject("summaryfeatures");
            summaryFeatures.setDouble("attribute(year)", music.year());
            DocsumSlime.setTensor(summaryFeatures, "attribute(embedding)", EMBEDDING);
        }
        return SearchProtocol.DocsumReply.newBuilder().setSlimeSummaries(docsums.toByteString()).build();
    }

}
