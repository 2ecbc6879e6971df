package ai.dwell.runtime.format;

import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.serialization.TypedBinaryFormat;

import java.util.Arrays;

/**
 * A tensor in Vespa's typed binary format, through a buffer sized for it: TypedBinaryFormat.encode(Tensor)
 * starts from a 64 KiB buffer, which for the small tensors of match features and summaries costs more to
 * allocate and clear than the encoding itself.
 */
public final class TensorBytes {

    private TensorBytes() {}

    public static byte[] encode(Tensor tensor) {
        GrowableByteBuffer buffer = new GrowableByteBuffer((int) Math.min(1 << 16, 64 + 8 * tensor.size()));
        TypedBinaryFormat.encode(tensor, buffer);
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

}
