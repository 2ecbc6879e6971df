package ai.dwell.searchers;

import com.yahoo.component.chain.Chain;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.Searcher;
import com.yahoo.search.result.Hit;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.tensor.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Greedy collapsing of near-duplicates over a backend whose hits carry 2-d embeddings at known angles. */
public class DuplicateCollapseSearcherTest {

    /** c0..c5 best first; c1 and c3 are near-duplicates of c0 (cosine 0.995), c4 of c2; c5 stands apart. */
    private static final double[] ANGLES = {0, 0.1, 1.2, -0.1, 1.25, 2.5};

    @Test
    void keepsTheBestOfEachGroupInOrderAndCountsTheRest() {
        Result result = search("?collapse.threshold=0.9&hits=3");
        assertEquals(List.of("c0", "c2", "c5"), ids(result));
        assertEquals(2, result.hits().get(0).getField("duplicates"));
        assertEquals(1, result.hits().get(1).getField("duplicates"));
        assertEquals(0, result.hits().get(2).getField("duplicates"));
        assertNull(result.hits().get(0).getField("embedding"), "embeddings are not shown");
    }

    @Test
    void aThresholdAboveEverySimilarityCollapsesNothing() {
        assertEquals(List.of("c0", "c1", "c2", "c3"), ids(search("?collapse.threshold=0.999&hits=4")));
    }

    @Test
    void withoutAThresholdTheResultIsUntouched() {
        Result result = search("?hits=4");
        assertEquals(List.of("c0", "c1", "c2", "c3"), ids(result));
        assertFalse(result.hits().get(0).fields().containsKey("duplicates"));
    }

    @Test
    void offsetsPageThroughTheCollapsedList() {
        assertEquals(List.of("c2", "c5"), ids(search("?collapse.threshold=0.9&hits=2&offset=1")));
    }

    @Test
    void badThresholdsAreRefused() {
        var error = search("?collapse.threshold=1.5").hits().getError();
        assertEquals(com.yahoo.container.protect.Error.BAD_REQUEST.code, error.getCode());
        assertTrue(error.getDetailedMessage().contains("collapse.threshold"));
    }

    @Test
    void theEmbeddingFieldAndSummaryComeFromConfig() {
        var config = new DuplicateCollapseConfig.Builder().embeddingField("vector").embeddingSummary("vectors").build();
        Result result = search(new DuplicateCollapseSearcher(config), new EmbeddingBackend("vector", "vectors"), "?collapse.threshold=0.9&hits=3");
        assertEquals(List.of("c0", "c2", "c5"), ids(result));
        assertEquals(2, result.hits().get(0).getField("duplicates"));
        assertNull(result.hits().get(0).getField("vector"), "embeddings are not shown");
    }

    private static Result search(String request) {
        return search(new DuplicateCollapseSearcher(new DuplicateCollapseConfig.Builder().build()),
                      new EmbeddingBackend("embedding", "embedding"), request);
    }

    private static Result search(DuplicateCollapseSearcher searcher, EmbeddingBackend backend, String request) {
        Execution execution = new Execution(new Chain<>(List.of(searcher, backend)), Execution.Context.createContextStub());
        return execution.search(new Query(request));
    }

    private static List<String> ids(Result result) {
        return result.hits().asList().stream().map(hit -> hit.getId().toString()).toList();
    }

    /** Hits c0..c5 whose embeddings, in this field, come only with this summary class. */
    private static final class EmbeddingBackend extends Searcher {

        private final String field;
        private final String summary;

        EmbeddingBackend(String field, String summary) {
            this.field = field;
            this.summary = summary;
        }

        @Override
        public Result search(Query query, Execution execution) {
            Result result = new Result(query);
            for (int i = 0; i < Math.min(ANGLES.length, query.getHits() + query.getOffset()); i++) {
                Hit hit = new Hit("c" + i, 10.0 - i);
                hit.setFillable();
                result.hits().add(hit);
            }
            result.hits().trim(query.getOffset(), query.getHits());
            return result;
        }

        @Override
        public void fill(Result result, String summaryClass, Execution execution) {
            for (Hit hit : result.hits().asList()) {
                int i = Integer.parseInt(hit.getId().toString().substring(1));
                if (summaryClass.equals(summary))
                    hit.setField(field, Tensor.from("tensor<float>(x[2]):[" + Math.cos(ANGLES[i]) + "," + Math.sin(ANGLES[i]) + "]"));
                hit.setFilled(summaryClass);
            }
        }
    }

}
