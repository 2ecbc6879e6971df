package ai.dwell.runtime.rank;

import ai.dwell.runtime.index.TextIndex;
import ai.dwell.runtime.match.TermFieldMatchData;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;

import java.util.Arrays;

/**
 * elementwise(bm25(field),dimension[,cellType]), as proton's ElementwiseBm25Executor: a tensor&lt;cellType&gt;(dimension{})
 * (cell type double when not given) with a cell for each element of the field that an occurrence of a ranked term
 * searching the field is in, labeled by the element's index (0 for the first element of an array; a single-value field
 * is element 0), whose value is bm25 computed on that element alone: the sum over the terms with occurrences in it of
 * idf · tf·(k1+1) / (tf + k1·(1 − b + b·elementLength/averageElementLength)), tf the term's occurrences in the element.
 * The idf is bm25(field)'s (see {@link TextFeatures#inverseDocumentFrequency}); k1, b and averageElementLength are
 * 1.2, 0.75 and this node's average element length (the field's length over its elements, empty elements counted:
 * {@link TextIndex#averageElementLength}) unless the profile sets bm25(field).k1, .b, .averageElementLength, which
 * elementwise(bm25(field),dimension,cellType).k1 and so on override. Elements no term occurs in have no cell; a
 * document without any is the empty tensor. Each value is cast to the cell type.
 *
 * <p>Scores are summed in arrays indexed by element, reused from document to document; only the tensor of a document
 * with matches is allocated, and it is remembered for the document, however often the expressions read it.
 */
final class ElementwiseBm25 extends Node implements Memo {

    private final TensorType type;
    private final Tensor empty;
    private final NativeRankFeatures.Slot[] slots;
    private final double[] idfTimesK1PlusOne;
    private final double k1TimesB, k1TimesOneMinusB, averageElementLength;
    private double[] scores = new double[16];
    private int[] touched = new int[16]; // the elements scored for this document, in the order first scored
    private boolean[] scored = new boolean[16];
    private int touchedCount;
    private TensorAddress[] labels = new TensorAddress[0];
    private int lid = -1;
    private Tensor tensor;

    ElementwiseBm25(TensorType type, TextIndex index, NativeRankFeatures.Terms terms, QueryProperties query,
                    double k1, double b, double averageElementLength) {
        this.type = type;
        this.empty = Tensor.Builder.of(type).build();
        this.k1TimesB = k1 * b;
        this.k1TimesOneMinusB = k1 * (1 - b);
        this.averageElementLength = averageElementLength;
        TextFeatures.Bm25Terms bm25Terms = TextFeatures.Bm25Terms.of(index, terms, query, k1);
        this.slots = bm25Terms.slots();
        this.idfTimesK1PlusOne = bm25Terms.idfTimesK1PlusOne();
    }

    @Override TensorType type() { return type; }

    @Override double number(int lid) { return tensor(lid).asDouble(); }

    @Override public void forget() { lid = -1; tensor = null; }

    @Override
    Tensor tensor(int lid) {
        if (lid == this.lid) return tensor;
        touchedCount = 0;
        for (int i = 0; i < slots.length; i++) {
            if ( ! slots[i].unpack(lid)) continue;
            TermFieldMatchData data = slots[i].data();
            int occurrences = 0, element = -1, length = 0;
            for (int k = 0; k < data.size(); k++) { // in element order: count the occurrences of each element
                if (occurrences > 0 && data.element(k) == element) {
                    occurrences++;
                    continue;
                }
                if (occurrences > 0) add(element, length, occurrences, idfTimesK1PlusOne[i]);
                occurrences = 1;
                element = data.element(k);
                length = data.elementLength(k);
            }
            if (occurrences > 0) add(element, length, occurrences, idfTimesK1PlusOne[i]);
        }
        this.lid = lid;
        return tensor = touchedCount == 0 ? empty : build();
    }

    private void add(int element, int length, int occurrences, double idfTimesK1PlusOne) {
        if (element >= scores.length) {
            int grown = Math.max(element + 1, scores.length * 2);
            scores = Arrays.copyOf(scores, grown);
            scored = Arrays.copyOf(scored, grown);
        }
        double norm = k1TimesOneMinusB + k1TimesB * length / averageElementLength;
        double score = occurrences * idfTimesK1PlusOne / (occurrences + norm);
        if (scored[element]) {
            scores[element] += score;
            return;
        }
        if (touchedCount == touched.length) touched = Arrays.copyOf(touched, touchedCount * 2);
        touched[touchedCount++] = element;
        scored[element] = true;
        scores[element] = score;
    }

    private Tensor build() {
        Tensor.Builder builder = Tensor.Builder.of(type);
        for (int i = 0; i < touchedCount; i++) {
            int element = touched[i];
            builder.cell(label(element), cast(scores[element]));
            scored[element] = false;
        }
        return builder.build();
    }

    private TensorAddress label(int element) {
        if (element >= labels.length) labels = Arrays.copyOf(labels, Math.max(element + 1, labels.length * 2));
        TensorAddress label = labels[element];
        if (label == null) labels[element] = label = TensorAddress.ofLabels(Integer.toString(element));
        return label;
    }

    /** The value as a cell of the type holds it. */
    private double cast(double value) {
        return switch (type.valueType()) {
            case DOUBLE -> value;
            case FLOAT -> (float) value;
            case BFLOAT16 -> Float.intBitsToFloat(Float.floatToRawIntBits((float) value) & 0xFFFF0000); // truncated, as vespalib
            case INT8 -> (byte) (long) value;
        };
    }

}
