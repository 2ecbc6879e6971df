package ai.dwell.runtime.rank;

import com.yahoo.tensor.IndexedTensor;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.List;

/**
 * The values of a rank program's output features (match or summary features) for a block of documents, the hits
 * a query returns: each feature computed over the whole block at once, a loop per node as the phases compute their
 * scores, not a call chain per document. Numbers are kept as they are computed; tensors are made per document, as
 * they are sent.
 */
public final class FeatureBlock {

    private final List<RankProgram.OutputFeature> features;
    private final double[][] numbers; // per feature, per document: null for a tensor feature
    private final Tensor[][] tensors; // per feature, per document: null for a number feature

    private FeatureBlock(List<RankProgram.OutputFeature> features, double[][] numbers, Tensor[][] tensors) {
        this.features = features;
        this.numbers = numbers;
        this.tensors = tensors;
    }

    /** Computes the features for the documents of the batch, which holds their local ids (and first-phase scores, if read). */
    static FeatureBlock compute(List<RankProgram.OutputFeature> features, Batch batch) {
        int count = batch.count();
        double[][] numbers = new double[features.size()][];
        Tensor[][] tensors = new Tensor[features.size()][];
        for (int f = 0; f < features.size(); f++) {
            Node node = features.get(f).node();
            if (node.type().rank() == 0) {
                numbers[f] = new double[count];
                node.numbers(batch, numbers[f]);
            }
            else {
                tensors[f] = tensors(node, batch);
            }
        }
        return new FeatureBlock(features, numbers, tensors);
    }

    /**
     * A dense value the engine computes itself: its cells computed for the block, cell-major, made into a tensor per
     * document; anything else (a model's output, a mapped tensor) per document, as the tensor it is.
     */
    private static Tensor[] tensors(Node node, Batch batch) {
        int count = batch.count();
        Tensor[] values = new Tensor[count];
        if ((node instanceof VectorNode || node instanceof DenseGather) && isBound(node.type())) {
            DenseCells dense = (DenseCells) node;
            double[] cells = dense.cells(batch);
            int size = dense.cellCount();
            for (int k = 0; k < count; k++) {
                IndexedTensor.BoundBuilder builder = (IndexedTensor.BoundBuilder) Tensor.Builder.of(node.type());
                for (int i = 0; i < size; i++) builder.cellByDirectIndex(i, cells[i * count + k]);
                values[k] = builder.build();
            }
        }
        else {
            int[] lids = batch.lids();
            for (int k = 0; k < count; k++) values[k] = node.tensor(lids[k]);
        }
        return values;
    }

    private static boolean isBound(TensorType type) {
        return type.dimensions().stream().allMatch(d -> d.isIndexed() && d.size().isPresent());
    }

    public List<RankProgram.OutputFeature> features() { return features; }

    /** Whether the feature at this index is a number (else a tensor). */
    public boolean isNumber(int feature) { return numbers[feature] != null; }

    /** The number value of the feature at this index for the document at this index of the block. */
    public double number(int feature, int document) { return numbers[feature][document]; }

    /** The tensor value of the feature at this index for the document at this index of the block. */
    public Tensor tensor(int feature, int document) { return tensors[feature][document]; }

}
