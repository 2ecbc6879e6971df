package ai.dwell.searchers;

import com.yahoo.component.ComponentId;
import com.yahoo.component.provider.ComponentRegistry;
import com.yahoo.language.process.Embedder;
import com.yahoo.prelude.query.NearestNeighborItem;
import com.yahoo.prelude.query.NotItem;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/** SimilarCommentsSearcher over a recording backend, with a stand-in embedder. */
public class SimilarCommentsSearcherTest {

    @Test
    void aTextBecomesANearestNeighborQueryOverThePackagesEmbeddings() {
        FixedEmbedder embedder = new FixedEmbedder();
        RecordingBackend backend = new RecordingBackend("embedding", "embedding");
        var searcher = new SimilarCommentsSearcher(registry("minilm", embedder), new SimilarCommentsConfig.Builder().build());
        SearchChains.search(List.of(searcher, backend), "/search/?similar.text=great+acting&hits=5");

        Query sent = backend.queries.get(0);
        NearestNeighborItem nearest = assertInstanceOf(NearestNeighborItem.class, sent.getModel().getQueryTree().getRoot());
        assertEquals("embedding", nearest.getIndexName());
        assertEquals("q", nearest.getQueryTensorName());
        assertEquals(10, nearest.getTargetNumHits());
        assertEquals(TensorType.fromSpec("tensor<float>(x[384])"),
                     sent.getRanking().getFeatures().getTensor("query(q)").orElseThrow().type());
        assertEquals("[comment]", sent.getModel().getRestrict().toString());
        assertEquals("similar", sent.getRanking().getProfile());
        assertEquals("great acting", embedder.text);
        assertEquals("query(q)", embedder.destination);
    }

    @Test
    void theSchemaFactsComeFromConfig() {
        var config = new SimilarCommentsConfig.Builder().schema("post").idField("post_id").embeddingField("vec")
                                                        .embeddingSummary("vectors").embedder("e5").queryTensor("qv")
                                                        .queryTensorType("tensor<float>(x[4])").profile("closest").build();
        FixedEmbedder embedder = new FixedEmbedder();
        RecordingBackend backend = new RecordingBackend("vec", "vectors");
        var searcher = new SimilarCommentsSearcher(registry("e5", embedder), config);

        SearchChains.search(List.of(searcher, backend), "/search/?similar.text=hello");
        Query byText = backend.queries.get(0);
        NearestNeighborItem nearest = assertInstanceOf(NearestNeighborItem.class, byText.getModel().getQueryTree().getRoot());
        assertEquals("vec", nearest.getIndexName());
        assertEquals("qv", nearest.getQueryTensorName());
        assertEquals(TensorType.fromSpec("tensor<float>(x[4])"),
                     byText.getRanking().getFeatures().getTensor("query(qv)").orElseThrow().type());
        assertEquals("query(qv)", embedder.destination);
        assertEquals("[post]", byText.getModel().getRestrict().toString());
        assertEquals("closest", byText.getRanking().getProfile());

        backend.queries.clear();
        SearchChains.search(List.of(searcher, backend), "/search/?similar=p1");
        Query lookup = backend.queries.get(0);
        assertEquals("post_id:p1", lookup.getModel().getQueryTree().getRoot().toString());
        assertEquals("[post]", lookup.getModel().getRestrict().toString());
        assertEquals("vectors", lookup.getPresentation().getSummary());
        Query byComment = backend.queries.get(1);
        NotItem not = assertInstanceOf(NotItem.class, byComment.getModel().getQueryTree().getRoot());
        assertEquals("vec", assertInstanceOf(NearestNeighborItem.class, not.getPositiveItem()).getIndexName());
        assertEquals("post_id:p1", not.getItem(1).toString());
        assertEquals(Tensor.from("tensor<float>(x[4]):[1,0,0,0]"),
                     byComment.getRanking().getFeatures().getTensor("query(qv)").orElseThrow(), "the comment's stored embedding");
    }

    private static ComponentRegistry<Embedder> registry(String id, Embedder embedder) {
        ComponentRegistry<Embedder> registry = new ComponentRegistry<>();
        registry.register(ComponentId.fromString(id), embedder);
        registry.freeze();
        return registry;
    }

    /** Embeds every text as a vector of ones of the asked type, and remembers what it was asked. */
    private static final class FixedEmbedder implements Embedder {

        String text;
        String destination;

        @Override
        public List<Integer> embed(String text, Context context) { throw new UnsupportedOperationException(); }

        @Override
        public Tensor embed(String text, Context context, TensorType type) {
            this.text = text;
            this.destination = context.getDestination();
            Tensor.Builder builder = Tensor.Builder.of(type);
            for (long i = 0; i < type.dimensions().get(0).size().orElseThrow(); i++)
                builder.cell().label(type.dimensions().get(0).name(), i).value(1);
            return builder.build();
        }

    }

    /**
     * Keeps every query it gets. A query for the given summary class is a lookup of one comment:
     * it gets that comment, whose fill sets its embedding in the given field.
     */
    private static final class RecordingBackend extends Searcher {

        final List<Query> queries = new ArrayList<>();
        private final String field;
        private final String summary;

        RecordingBackend(String field, String summary) {
            this.field = field;
            this.summary = summary;
        }

        @Override
        public Result search(Query query, Execution execution) {
            queries.add(query);
            Result result = new Result(query);
            if (summary.equals(query.getPresentation().getSummary())) {
                Hit hit = new Hit("p1", 1.0);
                hit.setFillable();
                result.hits().add(hit);
            }
            return result;
        }

        @Override
        public void fill(Result result, String summaryClass, Execution execution) {
            for (Hit hit : result.hits().asList()) {
                if (summaryClass.equals(summary)) hit.setField(field, Tensor.from("tensor<float>(x[4]):[1,0,0,0]"));
                hit.setFilled(summaryClass);
            }
        }

    }

}
