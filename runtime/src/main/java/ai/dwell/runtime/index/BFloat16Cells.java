package ai.dwell.runtime.index;

import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;

import java.util.Iterator;

/**
 * The cells of a bfloat16 tensor as proton stores them. A Java tensor of a bfloat16 type holds its cells as floats
 * (an embedder's output, a parsed document) and drops their low 16 bits only when serialized; proton's attribute
 * holds the serialized cells. An attribute given a tensor in process keeps it as proton would: each cell truncated
 * to bfloat16 (the top 16 bits of its float), as Vespa's serialization converts it, so ranking and nearestNeighbor
 * see the same cells as after a restart (when documents come back from the document store, serialized).
 */
final class BFloat16Cells {

    private BFloat16Cells() { }

    /** The tensor with its cells truncated to bfloat16 where its type is bfloat16 and a cell is not one already; else itself. */
    static Tensor asStored(Tensor tensor) {
        if (tensor == null || tensor.type().valueType() != TensorType.Value.BFLOAT16 || allBFloat16(tensor)) return tensor;
        Tensor.Builder builder = Tensor.Builder.of(tensor.type());
        for (Iterator<Tensor.Cell> cells = tensor.cellIterator(); cells.hasNext(); ) {
            Tensor.Cell cell = cells.next();
            builder.cell(cell.getKey(), truncated(cell.getValue()));
        }
        return builder.build();
    }

    /** A float's top 16 bits, as a float. */
    static float truncated(double value) {
        return Float.intBitsToFloat(Float.floatToRawIntBits((float) value) & 0xffff0000);
    }

    private static boolean allBFloat16(Tensor tensor) {
        for (Iterator<Double> values = tensor.valueIterator(); values.hasNext(); ) {
            double value = values.next();
            if (truncated(value) != (float) value) return false;
        }
        return true;
    }

}
