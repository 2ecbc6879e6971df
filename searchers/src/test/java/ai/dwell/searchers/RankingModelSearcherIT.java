package ai.dwell.searchers;

import com.yahoo.document.Document;
import com.yahoo.document.DocumentPut;
import com.yahoo.document.DocumentType;
import com.yahoo.document.datatypes.LongFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.documentapi.SyncParameters;
import com.yahoo.documentapi.SyncSession;
import com.yahoo.documentapi.local.LocalDocumentAccess;
import com.yahoo.search.Query;
import com.yahoo.search.Result;
import com.yahoo.search.searchchain.Execution;
import com.yahoo.component.chain.Chain;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RankingModelSearcher in a search chain, reading rankingmodel documents through a
 * DocumentAccess with dwell's document types.
 */
public class RankingModelSearcherIT {

    static final Map<String, String> WEIGHTS = Map.of(
            "W_0", "tensor<float>(x[9],h1[9])", "b_0", "tensor<float>(h1[9])",
            "W_1", "tensor<float>(h1[9],h2[9])", "b_1", "tensor<float>(h2[9])",
            "W_2", "tensor<float>(h2[9],o[1])", "b_2", "tensor<float>(o[1])");

    private LocalDocumentAccess access;
    private SyncSession feed;
    private RankingModelSearcher searcher;
    private CommentsBackend backend;

    @BeforeEach
    void setUp() {
        access = SearchChains.documentAccess();
        feed = access.createSyncSession(new SyncParameters.Builder().build());
        searcher = new RankingModelSearcher(access, SearchChains.schemaInfo(),
                                            new RankingModelConfig.Builder().refreshIntervalMillis(50).build());
        backend = new CommentsBackend(List.of(3.0, 2.0, 1.0));
    }

    @AfterEach
    void tearDown() {
        searcher.close();
        feed.destroy();
    }

    @Test
    void withoutAModelDocumentTheProfileFallsBackToThePackageConstants() {
        Result result = search("neural");
        Query sent = backend.lastQuery();
        assertTrue(sent.getRanking().getFeatures().getTensor("query(W_0)").isEmpty(), "no weights sent");
        assertTrue(sent.getRanking().getFeatures().getDouble("query(model_version)").isEmpty());
        assertEquals(0L, result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD));
        assertTrue(trace(sent).contains("falls back to the constants in the package"), trace(sent));
    }

    @Test
    void aFedModelIsSentWithEveryQueryOfItsProfile() throws InterruptedException {
        put(model(7, 0.25));
        Result result = awaitVersion(7, 1000);
        Query sent = backend.lastQuery();
        assertEquals(7.0, sent.getRanking().getFeatures().getDouble("query(model_version)").getAsDouble());
        for (var weight : WEIGHTS.entrySet()) {
            Tensor tensor = sent.getRanking().getFeatures().getTensor("query(" + weight.getKey() + ")").orElseThrow();
            assertEquals(TensorType.fromSpec(weight.getValue()), tensor.type());
            tensor.valueIterator().forEachRemaining(v -> assertEquals(0.25, v, 1e-7));
        }
        assertEquals(7L, result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD));
        assertTrue(trace(sent).contains("uses model version 7"), trace(sent));
    }

    @Test
    void theSameModelReadAgainSendsTheSameTensorInstances() throws InterruptedException {
        put(model(3, 0.5));
        awaitVersion(3, 1000);
        Tensor first = backend.lastQuery().getRanking().getFeatures().getTensor("query(W_0)").orElseThrow();
        Thread.sleep(300); // several refreshes
        search("neural");
        assertSame(first, backend.lastQuery().getRanking().getFeatures().getTensor("query(W_0)").orElseThrow());
        put(model(3, 0.75)); // the same version with other weights is another model
        long deadline = System.currentTimeMillis() + 1000;
        while (backend.lastQuery().getRanking().getFeatures().getTensor("query(W_0)").orElseThrow().valueIterator().next() != 0.75) {
            assertTrue(System.currentTimeMillis() < deadline, "changed weights not used within a second");
            Thread.sleep(5);
            search("neural");
        }
    }

    @Test
    void aNewVersionIsUsedWithinOneSecond() throws InterruptedException {
        put(model(1, 1));
        awaitVersion(1, 1000);
        long fed = System.nanoTime();
        put(model(2, 2));
        awaitVersion(2, 1000);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - fed);
        assertTrue(millis < 1000, "new version seen after " + millis + " ms");
    }

    @Test
    void profilesWithoutModelInputsAreLeftAlone() throws InterruptedException {
        put(model(4, 1));
        awaitVersion(4, 1000);
        for (String profile : List.of("freshness", "neural_onnx")) {
            Result result = search(profile);
            assertTrue(backend.lastQuery().getRanking().getFeatures().isEmpty(), profile);
            assertEquals(null, result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD), profile);
        }
    }

    @Test
    void weightsInTheRequestWin() throws InterruptedException {
        put(model(5, 1));
        awaitVersion(5, 1000);
        Result result = search("neural", "&input.query(model_version)=42");
        assertEquals(42L, result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD));
        assertTrue(backend.lastQuery().getRanking().getFeatures().getTensor("query(W_0)").isEmpty());
    }

    @Test
    void aDocumentThatDoesNotFitTheProfileIsRefusedAndTheLastGoodModelKept() throws InterruptedException {
        put(model(3, 1));
        awaitVersion(3, 1000);

        Document wrongShape = model(9, 1);
        assertThrows(IllegalArgumentException.class,
                     () -> wrongShape.setFieldValue("W_2", new TensorFieldValue(Tensor.from("tensor<float>(x[2]):[1,2]"))),
                     "the document type itself refuses a tensor of another type");

        Document incomplete = model(10, 1);
        incomplete.removeFieldValue("W_2");
        put(incomplete);
        Thread.sleep(300);
        assertEquals(3L, search("neural").hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD),
                     "a model without W_2 is refused");

        put(model(0, 1));
        Thread.sleep(300);
        assertEquals(3L, search("neural").hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD),
                     "version 0 is reserved for the package constants");

        put(model(11, 1));
        awaitVersion(11, 1000);
    }

    @Test
    void aQueryNeverMixesTwoVersions() throws Exception {
        put(model(1, 1));
        awaitVersion(1, 1000);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(5);
        try {
            Future<Integer> writer = threads.submit(() -> {
                int version = 1;
                while ( ! done.get()) {
                    put(model(++version, version));
                    Thread.sleep(3);
                }
                return version;
            });
            List<Future<List<Long>>> readers = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                readers.add(threads.submit(() -> {
                    List<Long> seen = new ArrayList<>();
                    CommentsBackend own = new CommentsBackend(List.of(1.0));
                    for (int i = 0; i < 2000; i++) {
                        Execution execution = new Execution(new Chain<>(searcher, own), Execution.Context.createContextStub());
                        Result result = execution.search(new Query("/search/?ranking=neural"));
                        long version = (Long) result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD);
                        var features = own.lastQuery().getRanking().getFeatures();
                        assertEquals((double) version, features.getDouble("query(model_version)").getAsDouble());
                        for (String weight : WEIGHTS.keySet())
                            features.getTensor("query(" + weight + ")").orElseThrow().valueIterator()
                                    .forEachRemaining(v -> assertEquals(version, v, 1e-9, "one version per query"));
                        seen.add(version);
                    }
                    return seen;
                }));
            }
            List<Long> versions = new ArrayList<>();
            for (Future<List<Long>> reader : readers) versions.addAll(reader.get(60, TimeUnit.SECONDS));
            done.set(true);
            int last = writer.get(10, TimeUnit.SECONDS);
            assertTrue(versions.stream().distinct().count() > 3,
                       "queries saw several versions while " + last + " were fed: " + versions.stream().distinct().count());
        }
        finally {
            done.set(true);
            threads.shutdownNow();
        }
    }

    private Result search(String profile) { return search(profile, ""); }

    private Result search(String profile, String more) {
        return SearchChains.search(List.of(searcher, backend), "/search/?ranking=" + profile + "&tracelevel=2" + more);
    }

    private Result awaitVersion(long version, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            Result result = search("neural");
            if (Long.valueOf(version).equals(result.hits().getField(RankingModelSearcher.VERSION_RESULT_FIELD)))
                return result;
            if (System.currentTimeMillis() > deadline)
                throw new AssertionError("version " + version + " not used within " + timeoutMillis + " ms");
            Thread.sleep(5);
        }
    }

    /** A rankingmodel document for profile neural whose every weight cell is the given value. */
    private Document model(long version, double value) {
        DocumentType type = access.getDocumentTypeManager().getDocumentType("rankingmodel");
        Document document = new Document(type, "id:dwell:rankingmodel::neural");
        document.setFieldValue("profile", new StringFieldValue("neural"));
        document.setFieldValue("version", new LongFieldValue(version));
        for (var weight : WEIGHTS.entrySet()) {
            TensorType tensorType = TensorType.fromSpec(weight.getValue());
            Tensor.Builder builder = Tensor.Builder.of(tensorType);
            var dims = tensorType.dimensions();
            long cells = 1;
            for (var d : dims) cells *= d.size().orElseThrow();
            for (long i = 0; i < cells; i++) {
                var cell = builder.cell();
                long rest = i;
                for (int d = dims.size() - 1; d >= 0; d--) {
                    long size = dims.get(d).size().orElseThrow();
                    cell = cell.label(dims.get(d).name(), rest % size);
                    rest /= size;
                }
                cell.value(value);
            }
            document.setFieldValue(weight.getKey(), new TensorFieldValue(builder.build()));
        }
        return document;
    }

    private void put(Document document) { feed.put(new DocumentPut(document)); }

    private static String trace(Query query) {
        StringBuilder b = new StringBuilder();
        query.getContext(true).getTrace().traceNode().accept(new com.yahoo.yolean.trace.TraceVisitor() {
            @Override public void visit(com.yahoo.yolean.trace.TraceNode node) {
                if (node.payload() != null) b.append(node.payload()).append('\n');
            }
        });
        return b.toString();
    }

}
