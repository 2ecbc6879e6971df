package ai.dwell.runtime.format;

import ai.vespa.searchlib.searchprotocol.protobuf.SearchProtocol;
import com.yahoo.jrt.Values;
import com.yahoo.tensor.Tensor;
import com.yahoo.tensor.TensorType;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pins the bytes of tensors and of the bix encoding (produced by the code before they moved here), and
 * checks that the record framing written two ways reads back, and that the reader stops at a torn or
 * corrupt record.
 */
public class FormatBytesTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void tensorBytesAreUnchanged() {
        Tensor tensor = Tensor.from(TensorType.fromSpec("tensor<double>(d{},x[2])"),
                                    "{{d:a,x:0}:1.0,{d:a,x:1}:2.5,{d:b,x:0}:-3.0,{d:b,x:1}:0.5}");
        assertEquals("03010164010178020201613ff000000000000040040000000000000162c0080000000000003fe0000000000000",
                     HEX.formatHex(TensorBytes.encode(tensor)));
    }

    @Test
    void bixBytesAreUnchanged() {
        BixCodec codec = new BixCodec();
        var small = SearchProtocol.SearchRequest.newBuilder().setHits(10).setOffset(2).setRankProfile("freshness").build();
        var large = SearchProtocol.SearchRequest.newBuilder().setHits(10).setRankProfile("x".repeat(4000)).build();
        assertBix(0, 15, "0802100a520966726573686e657373", values(codec, small, false));
        assertBix(0, 15, "0802100a520966726573686e657373", values(codec, small, true)); // too small to compress
        assertBix(0, 4005, "100a52a01f" + "78".repeat(4000), values(codec, large, false));
        Values compressed = values(codec, large, true);
        assertBix(6, 4005, "6f100a52a01f780100ffffffffffffffffffffffffffffff96507878787878", compressed);
        assertArrayEquals(large.toByteArray(), codec.decode(compressed));
    }

    @Test
    void recordsWrittenEitherWayAreTheSame() throws IOException {
        byte[] body = { 1, 2, 3, 4, 5 };
        ByteArrayOutputStream streamed = new ByteArrayOutputStream();
        Records.write(new DataOutputStream(streamed), body);
        ByteBuffer buffered = ByteBuffer.allocate(Records.framedSize(body.length));
        int start = Records.begin(buffered);
        buffered.put(body);
        Records.end(buffered, start);
        assertArrayEquals(streamed.toByteArray(), buffered.array());
        assertEquals("00000005" + HEX.formatHex(ByteBuffer.allocate(4).putInt(Records.checksum(body, 0, 5)).array()) + "0102030405",
                     HEX.formatHex(buffered.array()));
    }

    @Test
    void readerStopsAtTornAndCorruptRecords() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream output = new DataOutputStream(bytes);
        Records.write(output, new byte[] { 1, 2, 3 });
        Records.write(output, new byte[] { 4, 5, 6, 7 });
        byte[] file = bytes.toByteArray();

        RecordReader whole = reader(file, file.length);
        assertArrayEquals(new byte[] { 1, 2, 3 }, whole.next().get());
        assertArrayEquals(new byte[] { 4, 5, 6, 7 }, whole.next().get());
        assertTrue(whole.next().isEmpty());
        assertEquals(file.length, whole.validLength());

        RecordReader torn = reader(file, file.length - 1);
        torn.next();
        TornRecordException tornAt = assertThrows(TornRecordException.class, torn::next);
        assertEquals(11, tornAt.validLength());
        assertEquals("record length 4 runs past the end of the file", tornAt.reason());

        file[file.length - 1] ^= 1;
        RecordReader corrupt = reader(file, file.length);
        corrupt.next();
        TornRecordException corruptAt = assertThrows(TornRecordException.class, corrupt::next);
        assertEquals(11, corruptAt.validLength());
        assertEquals("checksum mismatch", corruptAt.reason());
    }

    private static RecordReader reader(byte[] file, int size) {
        return new RecordReader(new DataInputStream(new ByteArrayInputStream(file, 0, size)), 0, size, 1, 1 << 20, "record");
    }

    private static Values values(BixCodec codec, SearchProtocol.SearchRequest request, boolean compressed) {
        Values values = new Values();
        if (compressed) codec.encodeCompressed(request, values);
        else codec.encodeUncompressed(request, values);
        return values;
    }

    private static void assertBix(int type, int size, String data, Values values) {
        assertEquals(type, values.get(0).asInt8());
        assertEquals(size, values.get(1).asInt32());
        assertEquals(data, HEX.formatHex(values.get(2).asData()));
    }

}
