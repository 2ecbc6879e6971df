package ai.dwell.runtime.engine.group;

import com.yahoo.io.GrowableByteBuffer;
import com.yahoo.searchlib.aggregation.Grouping;
import com.yahoo.vespa.objects.BufferSerializer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** The grouping_blob of search requests and replies: a count, then serialized searchlib Grouping objects. */
public final class GroupingBlob {

    private GroupingBlob() {}

    public static List<Grouping> read(byte[] blob) {
        BufferSerializer buffer = new BufferSerializer(new GrowableByteBuffer(ByteBuffer.wrap(blob).asReadOnlyBuffer()));
        int count = buffer.getInt(null);
        List<Grouping> groupings = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Grouping grouping = new Grouping();
            grouping.deserialize(buffer);
            groupings.add(grouping);
        }
        return groupings;
    }

    public static byte[] write(List<Grouping> groupings) {
        BufferSerializer buffer = new BufferSerializer(new GrowableByteBuffer());
        buffer.putInt(null, groupings.size());
        for (Grouping grouping : groupings) grouping.serialize(buffer);
        buffer.getBuf().flip();
        ByteBuffer written = buffer.getBuf().getByteBuffer();
        byte[] bytes = new byte[written.remaining()];
        written.get(bytes);
        return bytes;
    }

}
