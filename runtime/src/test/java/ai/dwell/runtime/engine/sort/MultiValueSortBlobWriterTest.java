package ai.dwell.runtime.engine.sort;

import ai.dwell.runtime.index.MultiValueAttribute;
import com.yahoo.document.DataType;
import com.yahoo.document.datatypes.Array;
import com.yahoo.document.datatypes.DoubleFieldValue;
import com.yahoo.document.datatypes.IntegerFieldValue;
import com.yahoo.document.datatypes.StringFieldValue;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * The sort blobs of an array attribute, byte for byte as proton's sort blob writers write them for a multi-value
 * attribute: the lowest element ascending and the highest descending, behind a 0 byte (a document without elements
 * is a lone 1 byte, so it sorts last either way), or the other way around with missing(x,first), and no prefix with
 * missing(x,as,v).
 */
public class MultiValueSortBlobWriterTest {

    private static byte[] blob(MultiValueSortBlobWriter writer, int lid) {
        SortBlobs blobs = new SortBlobs();
        writer.write(lid, 0, blobs);
        blobs.endBlob();
        return blobs.blob(0);
    }

    private static byte[] prefixed(int prefix, byte[] value) {
        return ByteBuffer.allocate(1 + value.length).put((byte) prefix).put(value).array();
    }

    private static byte[] terminated(String value, boolean ascending) {
        byte[] utf8 = (value + "\0").getBytes(StandardCharsets.UTF_8);
        if ( ! ascending) for (int i = 0; i < utf8.length; i++) utf8[i] = (byte) (0xff - (utf8[i] & 0xff));
        return utf8;
    }

    @Test
    void stringsByTheirLowestOrHighestBytes() {
        MultiValueAttribute tags = new MultiValueAttribute("tags", MultiValueAttribute.Collection.ARRAY, MultiValueAttribute.Elements.STRING, false, true);
        Array<StringFieldValue> values = new Array<>(DataType.getArray(DataType.STRING));
        for (String tag : List.of("food", "Sport", "news")) values.add(new StringFieldValue(tag));
        tags.set(0, values);
        MultiValueSortBlobWriter ascending = new MultiValueSortBlobWriter(tags, SortField.parse("tags", true), null);
        assertArrayEquals(prefixed(0, terminated("Sport", true)), blob(ascending, 0)); // 'S' is below 'f' and 'n'
        MultiValueSortBlobWriter descending = new MultiValueSortBlobWriter(tags, SortField.parse("tags", false), null);
        assertArrayEquals(prefixed(0, terminated("news", false)), blob(descending, 0));
        MultiValueSortBlobWriter lowercased = new MultiValueSortBlobWriter(tags, SortField.parse("lowercase(tags)", true), null);
        assertArrayEquals(prefixed(0, terminated("food", true)), blob(lowercased, 0));
        assertArrayEquals(new byte[] { 1 }, blob(ascending, 1)); // no elements
        assertArrayEquals(new byte[] { 1 }, blob(descending, 1));
        MultiValueSortBlobWriter first = new MultiValueSortBlobWriter(tags, SortField.parse("missing(tags,first)", false), null);
        assertArrayEquals(new byte[] { 0 }, blob(first, 1));
        assertArrayEquals(prefixed(1, terminated("news", false)), blob(first, 0));
        MultiValueSortBlobWriter as = new MultiValueSortBlobWriter(tags, SortField.parse("missing(tags,as,\"Zed\")", false), null);
        assertArrayEquals(terminated("Zed", false), blob(as, 1));
        assertArrayEquals(terminated("news", false), blob(as, 0));
    }

    @Test
    void numbersInTheAttributesWidth() {
        MultiValueAttribute sizes = new MultiValueAttribute("sizes", MultiValueAttribute.Collection.ARRAY, MultiValueAttribute.Elements.INTEGER, false, false);
        Array<IntegerFieldValue> values = new Array<>(DataType.getArray(DataType.INT));
        for (int size : List.of(4, -2, 9)) values.add(new IntegerFieldValue(size));
        sizes.set(0, values);
        MultiValueSortBlobWriter ascending = new MultiValueSortBlobWriter(sizes, SortField.parse("sizes", true), NumericSortBlobWriter.Width.INT32);
        assertArrayEquals(prefixed(0, ByteBuffer.allocate(4).putInt(-2 ^ Integer.MIN_VALUE).array()), blob(ascending, 0));
        MultiValueSortBlobWriter descending = new MultiValueSortBlobWriter(sizes, SortField.parse("sizes", false), NumericSortBlobWriter.Width.INT32);
        assertArrayEquals(prefixed(0, ByteBuffer.allocate(4).putInt(9 ^ Integer.MAX_VALUE).array()), blob(descending, 0));
        MultiValueSortBlobWriter as = new MultiValueSortBlobWriter(sizes, SortField.parse("missing(sizes,as,3)", true), NumericSortBlobWriter.Width.INT32);
        assertArrayEquals(ByteBuffer.allocate(4).putInt(3 ^ Integer.MIN_VALUE).array(), blob(as, 1));

        MultiValueAttribute prices = new MultiValueAttribute("prices", MultiValueAttribute.Collection.ARRAY, MultiValueAttribute.Elements.FLOATING, false, false);
        Array<DoubleFieldValue> doubles = new Array<>(DataType.getArray(DataType.DOUBLE));
        for (double price : List.of(2.5, Double.NaN, 0.5)) doubles.add(new DoubleFieldValue(price));
        prices.set(0, doubles);
        MultiValueSortBlobWriter highest = new MultiValueSortBlobWriter(prices, SortField.parse("prices", false), NumericSortBlobWriter.Width.DOUBLE);
        assertArrayEquals(prefixed(0, ByteBuffer.allocate(8).putLong(Double.doubleToRawLongBits(2.5) ^ Long.MAX_VALUE).array()), blob(highest, 0));
    }

}
