package ai.dwell.runtime.index;

import com.yahoo.document.datatypes.TensorFieldValue;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorAddress;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A bfloat16 tensor attribute given a tensor in process (an embedder's output, cells still floats) keeps its cells
 * truncated to bfloat16 as proton stores them: 0.1f (0x3DCCCCCD) is 0.099609375 (0x3DCC0000), -3.3f (0xC0533333) is
 * -3.296875 (0xC0530000); a bfloat16 value (1.296875) and the cells of a float attribute are kept as they are.
 */
class BFloat16AttributeTest {

    @Test
    void aMappedBFloat16AttributeKeepsTruncatedCells() {
        TensorAttribute attribute = new TensorAttribute("splade", TensorType.fromSpec("tensor<bfloat16>(token{})"));
        attribute.set(0, new TensorFieldValue(Tensor.from("tensor<bfloat16>(token{}):{a:0.1, b:1.296875, c:-3.3}")));
        Tensor stored = attribute.tensor(0);
        assertEquals(0.099609375, stored.get(TensorAddress.ofLabels("a")));
        assertEquals(1.296875, stored.get(TensorAddress.ofLabels("b")));
        assertEquals(-3.296875, stored.get(TensorAddress.ofLabels("c")));
    }

    @Test
    void aDenseBFloat16VectorIsSearchedWithTruncatedCells() {
        NearestNeighborIndex index = new NearestNeighborIndex(2, DistanceMetric.EUCLIDEAN, null);
        TensorAttribute attribute = new TensorAttribute("embedding", TensorType.fromSpec("tensor<bfloat16>(x[2])"), index);
        attribute.set(3, new TensorFieldValue(Tensor.from("tensor<bfloat16>(x[2]):[0.1, -3.3]")));
        assertArrayEquals(new float[] { 0.099609375f, -3.296875f }, index.vector(3));
        assertEquals(-3.296875, attribute.tensor(3).get(TensorAddress.of(1)));
    }

    @Test
    void aBFloat16TensorAlreadyTruncatedAndAFloatTensorAreKeptAsGiven() {
        Tensor exact = Tensor.from("tensor<bfloat16>(token{}):{a:0.099609375, b:1.296875}");
        assertSame(exact, BFloat16Cells.asStored(exact));
        TensorAttribute floats = new TensorAttribute("floats", TensorType.fromSpec("tensor<float>(token{})"));
        floats.set(0, new TensorFieldValue(Tensor.from("tensor<float>(token{}):{a:0.1}")));
        assertEquals(0.1f, (float) floats.tensor(0).get(TensorAddress.ofLabels("a")));
    }

}
